package gateway

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/mcptool"
)

// complete relays a completion/complete to the server of the prompt or
// resource template it is about, under that server's own prompt name.
func (g *Gateway) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	params := *req.Params
	if params.Ref == nil {
		return nil, fmt.Errorf("gateway: completion/complete without a ref")
	}
	ref := *params.Ref
	g.mu.Lock()
	var server string
	switch ref.Type {
	case "ref/prompt":
		if pr, ok := g.served.prompts[ref.Name]; ok {
			server, ref.Name = pr.server, pr.name
		}
	case "ref/resource":
		if it, ok := g.served.templates[ref.URI]; ok {
			server = it.server
		} else if it, ok := g.served.resources[ref.URI]; ok {
			server = it.server
		}
	}
	g.mu.Unlock()
	p, ok := g.ts.Provider(server)
	if !ok {
		return nil, fmt.Errorf("gateway: completion/complete: no server serves %s %q", ref.Type, ref.Name+ref.URI)
	}
	params.Ref = &ref
	res := new(mcp.CompleteResult)
	return res, g.relay(ctx, p, "completion/complete", &params, res)
}

// subscribe relays a client's resources/subscribe to the resource's server
// the first time a client subscribes to it; go-sdk keeps which clients
// did, and [Gateway.resourceUpdated] tells them.
func (g *Gateway) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	p, err := g.resourceServer(uri)
	if err != nil {
		return err
	}
	g.mu.Lock()
	first := g.subscribers[uri] == 0
	g.subscribers[uri]++
	g.mu.Unlock()
	if !first {
		return nil
	}
	if err := g.relay(ctx, p, "resources/subscribe", &mcp.SubscribeParams{URI: uri}, nil); err != nil {
		g.mu.Lock()
		g.subscribers[uri]--
		g.mu.Unlock()
		return err
	}
	return nil
}

// unsubscribe relays a client's resources/unsubscribe once no client is
// left subscribed to the resource.
func (g *Gateway) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	uri := req.Params.URI
	p, err := g.resourceServer(uri)
	if err != nil {
		return err
	}
	g.mu.Lock()
	if g.subscribers[uri] > 0 {
		g.subscribers[uri]--
	}
	last := g.subscribers[uri] == 0
	g.mu.Unlock()
	if !last {
		return nil
	}
	return g.relay(ctx, p, "resources/unsubscribe", &mcp.UnsubscribeParams{URI: uri}, nil)
}

// resourceUpdated passes a server's notifications/resources/updated on to
// the clients subscribed to the resource.
func (g *Gateway) resourceUpdated(ctx context.Context, params *mcp.ResourceUpdatedNotificationParams) {
	for _, s := range g.servers() {
		// A client gone meanwhile misses it; nothing to do.
		_ = s.ResourceUpdated(ctx, params)
	}
}

// resourceServer is the server of the resource at uri, which the gateway
// lists.
func (g *Gateway) resourceServer(uri string) (*mcptool.Provider, error) {
	g.mu.Lock()
	it, ok := g.served.resources[uri]
	g.mu.Unlock()
	if p, running := g.ts.Provider(it.server); ok && running {
		return p, nil
	}
	return nil, mcp.ResourceNotFoundError(uri)
}

// relay sends method with params to the server p and decodes its result
// into res (nil: the result is empty).
func (g *Gateway) relay(ctx context.Context, p *mcptool.Provider, method string, params, res any) error {
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
