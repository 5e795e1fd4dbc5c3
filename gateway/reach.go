package gateway

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/gate"
	"github.com/mcpbridge/mcpbridge/internal/handle"
	"github.com/mcpbridge/mcpbridge/policy"
	"github.com/mcpbridge/mcpbridge/tool"
)

// What a client may see of the servers is what its policy reaches: the
// gateway's policy ([Options] Policy) and the client's own
// ([Client] Allow and Deny) judge a resource, a resource template and a prompt
// as they judge a tool, under the name the gateway serves it by
// ({prefix}_{name}), its server's own name for it, and the alias
// mcp__<server>__<name>. What the gateway's policy denies is not served;
// what a client's denies is not listed to it, and reading it, getting it,
// completing its arguments or subscribing to it is refused as for what
// does not exist. A client reaches a server when it is allowed anything of
// it, a tool or any of these (with no policy at all, it reaches every
// server): only then is it shown the server's instructions and what the
// server says outside any call (notices.go).

// itemDef is it as the tool definition a policy judges it by.
func itemDef(it servedItem) tool.Definition {
	return tool.Definition{Name: it.served, Origin: tool.Origin{Server: it.server, Tool: it.name}}
}

// allows reports whether p, nil for none, allows it.
func allows(p *policy.Policy, it servedItem) bool {
	if p == nil {
		return true
	}
	d := itemDef(it)
	return handle.Core[gate.Policy](p).For([]tool.Definition{d}).Allowed(d.Name)
}

// sees reports whether the client of ctx may see it, which the gateway
// serves.
func (g *Gateway) sees(ctx context.Context, it servedItem) bool {
	return allows(g.o.clients[callerOf(ctx).entry], it)
}

// reckon works out which servers each client with a policy of its own
// reaches, and which servers anything is served of, for the catalog and
// the items served now. g.mu is held.
func (g *Gateway) reckon() {
	anyone := map[string]bool{}
	for _, d := range g.served.defs {
		anyone[d.Origin.Server] = true
	}
	var items []servedItem
	for _, kind := range []map[string]servedItem{g.served.resources, g.served.templates, g.served.prompts} {
		for _, it := range kind {
			anyone[it.server] = true
			items = append(items, it)
		}
	}
	reach := make(map[string]map[string]bool, len(g.served.clients))
	for name, p := range g.served.clients {
		r := map[string]bool{}
		for _, d := range g.served.defs {
			if !r[d.Origin.Server] && p.Allowed(d.Name) {
				r[d.Origin.Server] = true
			}
		}
		for _, it := range items {
			if !r[it.server] && allows(g.o.clients[name], it) {
				r[it.server] = true
			}
		}
		reach[name] = r
	}
	g.served.anyone, g.served.reach = anyone, reach
}

// reaches reports whether the named client is allowed anything of server:
// with no policy, neither the gateway's nor its own, it is allowed all.
func (g *Gateway) reaches(client, server string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if r, ok := g.served.reach[client]; ok {
		return r[server]
	}
	return g.o.policy == nil || g.served.anyone[server]
}

// hideUnreached is the middleware of both of the gateway's servers that
// leaves out of what it answers a client what the client does not reach:
// the resources, templates and prompts its policy denies, and the
// instructions of the servers it reaches nothing of (of every client, the
// servers the gateway's policy denies whole).
func (g *Gateway) hideUnreached(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil {
			return res, err
		}
		var entry string
		if extra := req.GetExtra(); extra != nil {
			entry = entryName(extra.TokenInfo)
		}
		switch r := res.(type) {
		case *mcp.InitializeResult:
			shown := *r
			shown.Instructions = g.instructionsFor(entry)
			return &shown, nil
		case *mcp.DiscoverResult:
			shown := *r
			shown.Instructions = g.instructionsFor(entry)
			return &shown, nil
		}
		p := g.o.clients[entry]
		if p == nil {
			return res, err
		}
		// Each map is replaced whole when what is served changes, never
		// written after: read outside the lock.
		g.mu.Lock()
		resources, templates, prompts := g.served.resources, g.served.templates, g.served.prompts
		g.mu.Unlock()
		switch r := res.(type) {
		case *mcp.ListResourcesResult:
			shown := *r
			shown.Resources = shownOf(p, r.Resources, func(r *mcp.Resource) string { return r.URI }, resources)
			return &shown, nil
		case *mcp.ListResourceTemplatesResult:
			shown := *r
			shown.ResourceTemplates = shownOf(p, r.ResourceTemplates, func(t *mcp.ResourceTemplate) string { return t.URITemplate }, templates)
			return &shown, nil
		case *mcp.ListPromptsResult:
			shown := *r
			shown.Prompts = shownOf(p, r.Prompts, func(pr *mcp.Prompt) string { return pr.Name }, prompts)
			return &shown, nil
		}
		return res, err
	}
}

// shownOf is what of items p allows, each the item served under its key in
// served.
func shownOf[T any](p *policy.Policy, items []T, key func(T) string, served map[string]servedItem) []T {
	out := make([]T, 0, len(items))
	for _, x := range items {
		if it, ok := served[key(x)]; ok && allows(p, it) {
			out = append(out, x)
		}
	}
	return out
}

// unknownPrompt is go-sdk's answer to a prompts/get of a prompt it does
// not serve.
func unknownPrompt(name string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", name)}
}

// instructionsFor is the gateway's instructions for the named client: the
// sections of the servers it reaches.
func (g *Gateway) instructionsFor(client string) string {
	return g.instructions(func(server string) bool { return g.reaches(client, server) })
}

// liveSessions are the sessions of the gateway's servers.
func (g *Gateway) liveSessions() []*mcp.ServerSession {
	var out []*mcp.ServerSession
	for _, s := range g.servers() {
		for ss := range s.Sessions() {
			out = append(out, ss)
		}
	}
	return out
}
