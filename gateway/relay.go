package gateway

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
)

// complete relays a completion/complete to the server of the prompt or
// resource template it is about, under that server's own prompt name. A
// client's _meta stays with the gateway: the server is told what its own
// client says. What the client's policy denies is refused as what no
// server serves (reach.go).
func (g *Gateway) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	if req.Params.Ref == nil {
		return nil, fmt.Errorf("gateway: completion/complete without a ref")
	}
	ref := *req.Params.Ref
	g.mu.Lock()
	var (
		it    servedItem
		found bool
	)
	switch ref.Type {
	case "ref/prompt":
		it, found = g.served.prompts[ref.Name]
		ref.Name = it.name
	case "ref/resource":
		if it, found = g.served.templates[ref.URI]; !found {
			it, found = g.served.resources[ref.URI]
		}
	}
	g.mu.Unlock()
	p, running := g.ts.Provider(it.server)
	if !found || !running || !g.sees(ctx, it) {
		return nil, fmt.Errorf("gateway: completion/complete: no server serves %s %q", ref.Type, req.Params.Ref.Name+ref.URI)
	}
	ctx, leave, err := g.enter(ctx, it.server, req.Session)
	if err != nil {
		return nil, err
	}
	defer leave()
	params := &mcp.CompleteParams{Argument: req.Params.Argument, Context: req.Params.Context, Ref: &ref}
	res := new(mcp.CompleteResult)
	return res, g.relay(ctx, p, "completion/complete", params, res)
}

// subscribe subscribes the client's session to a resource the gateway
// lists, asking the resource's server when it is the first to
// (subscriptions.go); go-sdk keeps which sessions did, and
// [Gateway.resourceUpdated] tells them.
func (g *Gateway) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	p, it, err := g.resourceServer(uri)
	if err != nil {
		return err
	}
	if !g.sees(ctx, it) {
		return mcp.ResourceNotFoundError(uri)
	}
	return g.subs.add(ctx, req.Session, uri, g.upstream(p, uri, req.Session), g.watch)
}

// unsubscribe ends the client's session's subscription, if it has one,
// asking the resource's server to unsubscribe when it was the last.
//
// go-sdk also unsubscribes a 2026-07-28 listen when it ends, with the
// listen's context, done by then: the server is told all the same, for as
// long as the gateway runs.
func (g *Gateway) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	defer context.AfterFunc(g.ctx, cancel)()
	uri := req.Params.URI
	return g.subs.remove(ctx, req.Session, uri, func(ctx context.Context, on bool) error {
		p, _, err := g.resourceServer(uri)
		if err != nil {
			return nil // no longer served: nothing to tell
		}
		return g.upstream(p, uri, req.Session)(ctx, on)
	})
}

// upstream sends resources/subscribe or resources/unsubscribe of uri to
// the server p, for the client of the session ss (nil: the gateway's own,
// for a session that ended). A server that carries the gateway's listens
// on one session (sharesListens) is never told to unsubscribe: go-sdk's
// server would end with it the gateway's listen for list changes
// (internal/sdkfix); its listen for uri stays, and a later subscription
// takes it up.
func (g *Gateway) upstream(p *mcpclient.Provider, uri string, ss *mcp.ServerSession) upstream {
	return func(ctx context.Context, on bool) error {
		ctx, leave, err := g.enter(ctx, p.Name(), ss)
		if err != nil {
			return err
		}
		defer leave()
		switch {
		case on:
			return g.relay(ctx, p, "resources/subscribe", &mcp.SubscribeParams{URI: uri}, nil)
		case g.sharesListens(p):
			return nil
		}
		return g.relay(ctx, p, "resources/unsubscribe", &mcp.UnsubscribeParams{URI: uri}, nil)
	}
}

// sharesListens reports whether the server p carries the gateway's
// subscriptions/listen requests on one session: a server of 2026-07-28
// (where a subscription is a listen) not reached over HTTP, where each
// listen is a request of its own.
func (g *Gateway) sharesListens(p *mcpclient.Provider) bool {
	if p.ProtocolVersion() < statelessVersion {
		return false
	}
	for _, sc := range g.cfg.Servers {
		if sc.Name == p.Name() {
			return sc.URL == ""
		}
	}
	return false
}

// watch ends the subscriptions of ss when it ends, in a goroutine that
// [Gateway.Close] ends by closing ss.
func (g *Gateway) watch(ss *mcp.ServerSession) {
	go func() {
		_ = ss.Wait()
		errs := g.subs.ended(g.ctx, ss, func(uri string) upstream {
			p, _, err := g.resourceServer(uri)
			if err != nil {
				return nil
			}
			return g.upstream(p, uri, nil)
		})
		for _, err := range errs {
			g.log.Warn("gateway: a subscription of a session that ended was not ended on its server", "err", err)
		}
	}()
}

// resourceUpdated passes a server's notifications/resources/updated on to
// the clients subscribed to the resource, in order with the server's other
// notices (passon.go).
func (g *Gateway) resourceUpdated(server string, params *mcp.ResourceUpdatedNotificationParams) {
	g.pass(server, noticeSize(params.URI), func() {
		for _, s := range g.servers() {
			// A client gone meanwhile misses it; nothing to do.
			_ = s.ResourceUpdated(g.ctx, params)
		}
	})
}

// resourceServer is the server of the resource at uri, which the gateway
// lists, and the resource.
func (g *Gateway) resourceServer(uri string) (*mcpclient.Provider, servedItem, error) {
	g.mu.Lock()
	it, ok := g.served.resources[uri]
	g.mu.Unlock()
	if p, running := g.ts.Provider(it.server); ok && running {
		return p, it, nil
	}
	return nil, it, mcp.ResourceNotFoundError(uri)
}

// relay sends method with params to the server p and decodes its result
// into res (nil: the result is empty).
func (g *Gateway) relay(ctx context.Context, p *mcpclient.Provider, method string, params, res any) error {
	raw, err := p.Request(ctx, method, params)
	if err != nil {
		return relayError(err)
	}
	if res == nil {
		return nil
	}
	if err := json.Unmarshal(raw, res); err != nil {
		return fmt.Errorf("gateway: server %q: %s: %w", p.Name(), method, err)
	}
	return nil
}
