package gateway

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/ctxkey"
	"github.com/mcpbridge/mcpbridge/internal/gate"
	"github.com/mcpbridge/mcpbridge/internal/handle"
	"github.com/mcpbridge/mcpbridge/tool"
)

// A caller is who sent the request being served, as [Gateway.admit] puts
// it in the request's context.
type caller struct {
	name  string // the client's name, "" for a client without a token
	entry string // its entry in Options.Clients, if it has one: its app's, behind OAuth
	token string // its bearer token, kept only for Options.Passthrough
}

var callerKey = ctxkey.New[caller]("gateway caller")

func callerOf(ctx context.Context) caller { return callerKey.Value(ctx) }

// clientName is the name of the client whose token info is, "" for none:
// the name of its token in [Options] Clients, or behind OAuth its user
// ([userOf]). A client's lane, sessions, limits and tasks go by it.
func clientName(info *auth.TokenInfo) string {
	if info == nil {
		return ""
	}
	return info.UserID
}

// entryName is the name of the entry of [Options] Clients whose policy
// and rate limit hold for the client whose token info is: its token's,
// or behind OAuth its app's (client_id, else azp, else sub), which all
// the app's users share.
func entryName(info *auth.TokenInfo) string {
	if info == nil {
		return ""
	}
	if app, ok := info.Extra[clientKey].(string); ok {
		return app
	}
	return info.UserID
}

// admit is the middleware that admits a client's request ([Gateway.admitted])
// and tells the handlers who the client is; a session's initialize is
// counted among the sessions open, or refused past their bounds
// (sessions.go). A notification (a cancellation, say) is never refused,
// nor held back.
func (g *Gateway) admit(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		var info *auth.TokenInfo
		var overHTTP bool
		if extra := req.GetExtra(); extra != nil {
			// go-sdk's HTTP handlers give every request its headers:
			// the endpoint counted it (http.go).
			info, overHTTP = extra.TokenInfo, extra.Header != nil
		}
		ctx, leave, err := g.admitted(ctx, info, !overHTTP && !handshake(method))
		if err != nil {
			return nil, err
		}
		defer leave()
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok && method == "initialize" {
			if err := g.sessions.opened(ss, callerOf(ctx).name, callerOf(ctx).entry); err != nil {
				return nil, err
			}
		}
		return next(ctx, method, req)
	}
}

// admitted admits a request of the client whose token info is (nil for
// none): it counts it against the client's rate limit when count says the
// HTTP endpoint has not (over stdio), takes one of the slots of the
// requests being served (slots.go), waiting in the client's queue while
// they are busy, and returns ctx telling the handlers who the client is,
// with the function that gives the slot back; or the refusal.
func (g *Gateway) admitted(ctx context.Context, info *auth.TokenInfo, count bool) (context.Context, func(), error) {
	var c caller
	if info != nil {
		c.name, c.entry = clientName(info), entryName(info)
		c.token, _ = info.Extra[passthroughKey].(string)
	}
	if count {
		if err := g.limits.take(c.name, c.entry); err != nil {
			return ctx, nil, err
		}
	}
	if err := g.room(c.name, 0); err != nil {
		return ctx, nil, err // results.go
	}
	leave, err := g.slots.enter(ctx, c.name, g.ctx.Done())
	if err != nil {
		return ctx, nil, err
	}
	return callerKey.With(ctx, c), leave, nil
}

// hideDenied is the catalog server's middleware that leaves out of a
// client's tools/list the tools its own policy denies.
func (g *Gateway) hideDenied(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		list, ok := res.(*mcp.ListToolsResult)
		if method != "tools/list" || !ok || len(g.o.clients) == 0 {
			return res, err
		}
		var entry string
		if extra := req.GetExtra(); extra != nil {
			entry = entryName(extra.TokenInfo)
		}
		p := g.clientPolicy(entry)
		if p == nil {
			return res, err
		}
		shown := *list
		shown.Tools = make([]*mcp.Tool, 0, len(list.Tools))
		for _, t := range list.Tools {
			if p.Allowed(t.Name) {
				shown.Tools = append(shown.Tools, t)
			}
		}
		return &shown, err
	}
}

// clientPolicies are the clients' own policies, knowing the names of the
// catalog defs.
func (g *Gateway) clientPolicies(defs []tool.Definition) map[string]*gate.Policy {
	out := make(map[string]*gate.Policy, len(g.o.clients))
	for name, p := range g.o.clients {
		if p != nil {
			out[name] = handle.Core[gate.Policy](p).For(defs)
		}
	}
	return out
}

// clientPolicy is the policy of the entry of [Options] Clients named
// entry, for the catalog served now; nil if it has none.
func (g *Gateway) clientPolicy(entry string) *gate.Policy {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.served.clients[entry]
}

// visible says which tools the client of ctx may see: nil if all.
func (g *Gateway) visible(ctx context.Context) func(tool.Definition) bool {
	p := g.clientPolicy(callerOf(ctx).entry)
	if p == nil {
		return nil
	}
	return func(d tool.Definition) bool { return p.Allowed(d.Name) }
}
