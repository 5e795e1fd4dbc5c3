package gateway

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/toolset"
)

// maxPages bounds the pages of one server's listing of resources, resource
// templates or prompts that the gateway follows.
const maxPages = 100

// A listing is what the gateway serves of one server's resources,
// templates and prompts.
type listing struct {
	server    toolset.ServerConfig
	p         *mcptool.Provider
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
		if caps := p.ServerCapabilities(); caps != nil {
			var err error
			if caps.Resources != nil {
				if l.resources, err = list(ctx, p, "resources/list", func(r *mcp.ListResourcesResult) ([]*mcp.Resource, string) { return r.Resources, r.NextCursor }); err == nil {
					l.templates, err = list(ctx, p, "resources/templates/list", func(r *mcp.ListResourceTemplatesResult) ([]*mcp.ResourceTemplate, string) {
						return r.ResourceTemplates, r.NextCursor
					})
				}
			}
			if err == nil && caps.Prompts != nil {
				l.prompts, err = list(ctx, p, "prompts/list", func(r *mcp.ListPromptsResult) ([]*mcp.Prompt, string) { return r.Prompts, r.NextCursor })
			}
			if err != nil {
				g.log.Warn("gateway: resources and prompts not listed; keeping those served", "server", sc.Name, "err", err)
				l.failed = true
			}
		}
		all = append(all, l)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.served.resources = g.serveResources(all, prev.resources)
	g.served.templates = g.serveTemplates(all, prev.templates)
	g.served.prompts = g.servePrompts(all, prev.prompts)
}

// list follows every page of a listing method of p, up to maxPages.
func list[R any, T any](ctx context.Context, p *mcptool.Provider, method string, items func(*R) ([]T, string)) ([]T, error) {
	var out []T
	cursor := ""
	for range maxPages {
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		raw, err := p.Request(ctx, method, params)
		if err != nil {
			return nil, err
		}
		res := new(R)
		if err := json.Unmarshal(raw, res); err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		page, next := items(res)
		out = append(out, page...)
		if next == "" || next == cursor {
			return out, nil
		}
		cursor = next
	}
	return out, nil
}

// namespaced is name in the server's namespace, as its tools are named.
func namespaced(sc toolset.ServerConfig, name string) string {
	if prefix := sc.ToolPrefix(); prefix != "" {
		return prefix + "_" + name
	}
	return name
}

func (g *Gateway) serveResources(all []listing, old map[string]servedItem) map[string]servedItem {
	now := map[string]servedItem{}
	for _, l := range all {
		if l.failed {
			for uri, it := range old {
				if it.server == l.server.Name {
					now[uri] = it
				}
			}
			continue
		}
		for _, r := range l.resources {
			if _, taken := now[r.URI]; taken || r.URI == "" {
				continue
			}
			c := *r
			c.Name = namespaced(l.server, r.Name)
			h := hash(&c)
			now[r.URI] = servedItem{l.server.Name, h}
			if old[r.URI] != now[r.URI] {
				g.guard(l.server.Name, "resource "+r.URI, func() {
					for _, s := range g.servers() {
						s.AddResource(&c, g.read(l.p))
					}
				})
			}
		}
	}
	var gone []string
	for uri := range old {
		if _, ok := now[uri]; !ok {
			gone = append(gone, uri)
		}
	}
	for _, s := range g.servers() {
		s.RemoveResources(gone...)
	}
	return now
}

func (g *Gateway) serveTemplates(all []listing, old map[string]servedItem) map[string]servedItem {
	now := map[string]servedItem{}
	for _, l := range all {
		if l.failed {
			for t, it := range old {
				if it.server == l.server.Name {
					now[t] = it
				}
			}
			continue
		}
		for _, t := range l.templates {
			if _, taken := now[t.URITemplate]; taken || t.URITemplate == "" {
				continue
			}
			c := *t
			c.Name = namespaced(l.server, t.Name)
			now[t.URITemplate] = servedItem{l.server.Name, hash(&c)}
			if old[t.URITemplate] != now[t.URITemplate] {
				g.guard(l.server.Name, "resource template "+t.URITemplate, func() {
					for _, s := range g.servers() {
						s.AddResourceTemplate(&c, g.read(l.p))
					}
				})
			}
		}
	}
	var gone []string
	for t := range old {
		if _, ok := now[t]; !ok {
			gone = append(gone, t)
		}
	}
	for _, s := range g.servers() {
		s.RemoveResourceTemplates(gone...)
	}
	return now
}

func (g *Gateway) servePrompts(all []listing, old map[string]servedPrompt) map[string]servedPrompt {
	now := map[string]servedPrompt{}
	for _, l := range all {
		if l.failed {
			for n, it := range old {
				if it.server == l.server.Name {
					now[n] = it
				}
			}
			continue
		}
		for _, pr := range l.prompts {
			c := *pr
			c.Name = namespaced(l.server, pr.Name)
			if _, taken := now[c.Name]; taken {
				g.log.Warn("gateway: prompt left out: its name is another server's", "server", l.server.Name, "prompt", pr.Name)
				continue
			}
			now[c.Name] = servedPrompt{l.server.Name, pr.Name, hash(&c)}
			if old[c.Name] != now[c.Name] {
				for _, s := range g.servers() {
					s.AddPrompt(&c, g.getPrompt(l.p, pr.Name))
				}
			}
		}
	}
	var gone []string
	for n := range old {
		if _, ok := now[n]; !ok {
			gone = append(gone, n)
		}
	}
	for _, s := range g.servers() {
		s.RemovePrompts(gone...)
	}
	return now
}

// servers are the gateway's go-sdk servers, each serving the resources and
// prompts.
func (g *Gateway) servers() []*mcp.Server { return []*mcp.Server{g.full, g.small} }

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
// its questions relayed to the client as a tool call's are (hostio.go).
func (g *Gateway) read(p *mcptool.Provider) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		ctx = mcptool.WithCaller(ctx, callerFor(req.Session, req.Params.InputResponses, req.Params.RequestState))
		res, err := p.ReadResource(ctx, req.Params.URI)
		if err != nil {
			return nil, relayError(err)
		}
		return res, nil
	}
}

// getPrompt gets the prompt name from the server p, its questions relayed
// to the client as a tool call's are (hostio.go).
func (g *Gateway) getPrompt(p *mcptool.Provider, name string) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		ctx = mcptool.WithCaller(ctx, callerFor(req.Session, req.Params.InputResponses, req.Params.RequestState))
		params := &mcp.GetPromptParams{Name: name, Arguments: req.Params.Arguments, InputResponses: req.Params.InputResponses, RequestState: req.Params.RequestState}
		res := new(mcp.GetPromptResult)
		return res, g.relay(ctx, p, "prompts/get", params, res)
	}
}
