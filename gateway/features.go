package gateway

import (
	"context"
	"fmt"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
)

// A listing is what the gateway serves of one server's resources,
// templates and prompts.
type listing struct {
	server    config.Server
	p         *mcpclient.Provider
	resources []*mcp.Resource
	templates []*mcp.ResourceTemplate
	prompts   []*mcp.Prompt
	failed    bool // the listing failed: what the server served stays
}

// syncFeatures lists the resources, resource templates and prompts of every
// running server that declares them, and serves them: resources and
// templates under their own URIs, a URI two servers list being the first's
// in config order; their names, and prompts' names, namespaced as the
// toolset namespaces tools ({prefix}_{name}). Only what changed is added or
// removed, so go-sdk notifies clients of real changes alone. A server whose
// listing fails keeps what it served, and the failure is logged.
func (g *Gateway) syncFeatures() {
	ctx := g.ctx
	var all []listing
	g.mu.Lock()
	prev := g.served
	g.mu.Unlock()
	for _, sc := range g.cfg.Servers {
		p, ok := g.ts.Provider(sc.Name)
		if !ok {
			continue
		}
		l := listing{server: sc, p: p}
		var err error
		if l.resources, err = p.Resources(ctx); err == nil {
			if l.templates, err = p.ResourceTemplates(ctx); err == nil {
				l.prompts, err = p.Prompts(ctx)
			}
		}
		if err != nil {
			g.log.Warn("gateway: resources and prompts not listed; keeping those served", "server", sc.Name, "err", err)
			l.failed = true
		}
		all = append(all, l)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.served.resources = g.serve(all, prev.resources, kind{offers: g.resources, remove: (*mcp.Server).RemoveResources})
	g.served.templates = g.serve(all, prev.templates, kind{offers: g.templates, remove: (*mcp.Server).RemoveResourceTemplates})
	g.served.prompts = g.serve(all, prev.prompts, kind{offers: g.prompts, remove: (*mcp.Server).RemovePrompts, clash: g.promptTaken})
	g.reckon()
}

// namespaced is name in the server's namespace, as its tools are named.
func namespaced(sc config.Server, name string) string {
	if prefix := sc.ToolPrefix(); prefix != "" {
		return prefix + "_" + name
	}
	return name
}

// An offer is one item of a server's listing (a resource, a resource
// template, a prompt) as the gateway would serve it.
type offer struct {
	key  string            // the URI, URI template or final name it is served under
	item servedItem        // what is kept of it while it is served
	what string            // what it is, for the log
	add  func(*mcp.Server) // serves it on one of the gateway's servers
}

// A kind is one kind of item the gateway serves from its servers' listings.
type kind struct {
	offers func(listing) []offer        // a listing's offers, in its order
	remove func(*mcp.Server, ...string) // stops serving the items of keys
	clash  func(listing, offer)         // if set, told of an offer whose key is taken
}

// serve serves one kind of item of all the listings and returns what is
// served now, given what was (old): a failed listing keeps what its server
// served; a key two servers offer is the first's in config order; an item
// is added only if it is new or changed, and the keys no longer offered
// are removed.
func (g *Gateway) serve(all []listing, old map[string]servedItem, k kind) map[string]servedItem {
	now := map[string]servedItem{}
	for _, l := range all {
		if l.failed {
			for key, it := range old {
				if it.server == l.server.Name {
					now[key] = it
				}
			}
			continue
		}
		for _, o := range k.offers(l) {
			if !allows(g.o.policy, o.item) {
				continue // the gateway's policy denies it: served to no one (reach.go)
			}
			if _, taken := now[o.key]; taken {
				if k.clash != nil {
					k.clash(l, o)
				}
				continue
			}
			now[o.key] = o.item
			if old[o.key] != o.item {
				g.guard(l.server.Name, o.what, func() {
					for _, s := range g.servers() {
						o.add(s)
					}
				})
			}
		}
	}
	var gone []string
	for key := range old {
		if _, ok := now[key]; !ok {
			gone = append(gone, key)
		}
	}
	for _, s := range g.servers() {
		k.remove(s, gone...)
	}
	return now
}

// resources offers l's resources under their URIs.
func (g *Gateway) resources(l listing) []offer {
	return offers(l, l.resources, "resource", func(r *mcp.Resource) (*string, string) { return &r.Name, r.URI },
		func(s *mcp.Server, r *mcp.Resource, it servedItem) { s.AddResource(r, g.read(l.p, it)) })
}

// templates offers l's resource templates under their URI templates.
func (g *Gateway) templates(l listing) []offer {
	return offers(l, l.templates, "resource template", func(t *mcp.ResourceTemplate) (*string, string) { return &t.Name, t.URITemplate },
		func(s *mcp.Server, t *mcp.ResourceTemplate, it servedItem) { s.AddResourceTemplate(t, g.read(l.p, it)) })
}

// prompts offers l's prompts under their names in the server's namespace.
func (g *Gateway) prompts(l listing) []offer {
	return offers(l, l.prompts, "prompt", func(p *mcp.Prompt) (*string, string) { return &p.Name, p.Name },
		func(s *mcp.Server, p *mcp.Prompt, it servedItem) { s.AddPrompt(p, g.getPrompt(l.p, it)) })
}

// offers offers each of items, one kind of l's: a copy named in the
// server's namespace, under the key id gives of it once named (its URI,
// say; an item without one is left out), that add serves. id returns
// the item's name, to rename, and its key.
func offers[T any](l listing, items []*T, kind string, id func(*T) (*string, string), add func(*mcp.Server, *T, servedItem)) []offer {
	var out []offer
	for _, item := range items {
		c := *item
		name, _ := id(&c)
		original := *name
		*name = namespaced(l.server, original)
		_, key := id(&c)
		if key == "" {
			continue
		}
		it := servedItem{l.server.Name, original, *name, hash(&c)}
		out = append(out, offer{key: key, item: it, what: kind + " " + key, add: func(s *mcp.Server) { add(s, &c, it) }})
	}
	return out
}

// promptTaken logs a prompt of l left out: its final name is an earlier
// server's.
func (g *Gateway) promptTaken(l listing, o offer) {
	g.log.Warn("gateway: prompt left out: its name is another server's", "server", l.server.Name, "prompt", o.item.name)
}

// servers are the gateway's go-sdk servers, each serving the resources and
// prompts; none before Start made them (a server's notice that comes as it
// starts reaches no session: there is none).
func (g *Gateway) servers() []*mcp.Server {
	if !g.made.Load() {
		return nil
	}
	return []*mcp.Server{g.full, g.small}
}

// guard runs add, which hands a server's item to go-sdk; go-sdk panics on an
// item it finds malformed (a URI that does not parse, a template that is
// not one), and a server's listing must not stop the gateway: the item is
// left out and logged.
func (g *Gateway) guard(server, what string, add func()) {
	defer func() {
		if r := recover(); r != nil {
			g.log.Warn("gateway: item left out: it is malformed", "server", server, "item", what, "err", fmt.Sprint(r))
		}
	}()
	add()
}

// read reads a resource from the server p, its result passed on as it is,
// its questions relayed to the client as a tool call's are (hostio.go). it
// is the resource or template read through: a client its policy denies is
// answered as for a resource that does not exist (reach.go).
func (g *Gateway) read(p *mcpclient.Provider, it servedItem) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		if !g.sees(ctx, it) {
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}
		ctx, leave, err := g.enter(ctx, it.server, req.Session)
		if err != nil {
			return nil, err
		}
		defer leave()
		ctx = mcpclient.WithCaller(ctx, callerFor(req.Session, req.Params.InputResponses, req.Params.RequestState))
		res, err := p.ReadResource(ctx, req.Params.URI)
		if err != nil {
			return nil, relayError(err)
		}
		var n int64
		for _, c := range res.Contents {
			n += int64(len(c.Text) + len(c.Blob)*4/3)
		}
		if err := g.room(callerOf(ctx).name, n); err != nil {
			return nil, err // results.go
		}
		return res, nil
	}
}

// getPrompt gets the prompt it from the server p, its questions relayed
// to the client as a tool call's are (hostio.go). A client its policy
// denies is answered as for a prompt that does not exist, as go-sdk
// answers (reach.go).
func (g *Gateway) getPrompt(p *mcpclient.Provider, it servedItem) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		if !g.sees(ctx, it) {
			return nil, unknownPrompt(req.Params.Name)
		}
		ctx, leave, err := g.enter(ctx, it.server, req.Session)
		if err != nil {
			return nil, err
		}
		defer leave()
		ctx = mcpclient.WithCaller(ctx, callerFor(req.Session, req.Params.InputResponses, req.Params.RequestState))
		params := &mcp.GetPromptParams{Name: it.name, Arguments: req.Params.Arguments, InputResponses: req.Params.InputResponses, RequestState: req.Params.RequestState}
		res := new(mcp.GetPromptResult)
		return res, g.relay(ctx, p, "prompts/get", params, res)
	}
}
