package gateway

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/ctxkey"
)

// inFlight are the requests the gateway has sent each server for a client
// and not yet seen answered (tools/call, resources/read, prompts/get,
// completion/complete, the tasks extension's requests), so that what a
// server says on its own during them reaches only the client they are
// for: go-sdk hands the gateway a server's notification with nothing that
// says which request it came during (notices.go).
type inFlight struct {
	mu       sync.Mutex
	byServer map[string]map[*clientCall]struct{}
}

// A clientCall is one request of a client in flight on a server.
type clientCall struct {
	owner any                // who the call is for: the client's name, else its session, else the call itself
	ss    *mcp.ServerSession // the session to tell, nil for none (the fast path's calls)
	ctx   context.Context    // the request's, so that go-sdk writes on its stream
}

var clientCallKey = ctxkey.New[*clientCall]("gateway client call")

// enter counts a request of the client of ctx, over the session ss (nil
// for none), to server as in flight until leave is called. The context
// it returns carries the request, for what a server's notice comes with
// it (mcptool passes a raw call's notices on with the call's context).
func (f *inFlight) enter(ctx context.Context, server string, ss *mcp.ServerSession) (_ context.Context, leave func()) {
	if server == "" {
		return ctx, func() {}
	}
	c := &clientCall{ss: ss, ctx: ctx}
	switch name := callerOf(ctx).name; {
	case name != "":
		c.owner = name
	case ss != nil:
		c.owner = ss
	default:
		c.owner = c
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.byServer == nil {
		f.byServer = map[string]map[*clientCall]struct{}{}
	}
	calls := f.byServer[server]
	if calls == nil {
		calls = map[*clientCall]struct{}{}
		f.byServer[server] = calls
	}
	calls[c] = struct{}{}
	return clientCallKey.With(ctx, c), func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(calls, c) // the server's set stays: there are as many as servers
	}
}

// owner reports whom a notice of server handled with ctx is for: the
// request ctx carries; else, by the requests in flight on the server, no
// one (0), one client (1, with a request of it, one with a session if it
// has one), or several (2).
func (f *inFlight) owner(ctx context.Context, server string) (one *clientCall, owners int) {
	if c := clientCallKey.Value(ctx); c != nil {
		return c, 1
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for c := range f.byServer[server] {
		switch {
		case one == nil:
			one = c
		case c.owner != one.owner:
			return nil, 2
		case one.ss == nil:
			one = c
		}
	}
	if one == nil {
		return nil, 0
	}
	return one, 1
}

// serverOf is the server of the tool a client calls by name (its name in
// the catalog, or its alias), "" for none served.
func (g *Gateway) serverOf(name string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.served.serverOf[name]
}
