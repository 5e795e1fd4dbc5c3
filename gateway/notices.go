package gateway

import (
	"context"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// levels are the MCP log levels, least severe first.
var levels = []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// forwardLog passes a server's log message on, its logger named after the
// server, to the clients it may be for that asked for messages of its
// level (go-sdk filters by each session's level, or a 2026-07-28
// request's). go-sdk does not say which request of the gateway's a
// notification came during (mcptool does for a raw call, passing its
// context), so the gateway goes by what it has in flight on the server
// (inflight.go):
//
//   - requests of one client: the message goes to that client alone, on
//     the stream of one of its requests (none for the fast path's calls,
//     which ask for no log);
//   - requests of several clients: to none, since it may be any one's (a
//     call's arguments, say), as a server's request is refused then
//     (hostio.go);
//   - none: it belongs to no call, and goes to every session whose client
//     reaches the server (reach.go).
//
// A message a server sends as a call ends may be handled after the call's
// answer, go-sdk handling notifications on a goroutine of their own, and
// then counts as sent outside any call: it reaches the clients that reach
// the server, never another. The decision is made as the message comes,
// and the message passed on in order with the server's other notices
// (passon.go).
func (g *Gateway) forwardLog(ctx context.Context, server string, p *mcp.LoggingMessageParams) {
	c := *p
	c.Logger = server
	if p.Logger != "" {
		c.Logger += "/" + p.Logger
	}
	call, owners := g.calls.owner(ctx, server)
	switch {
	case owners > 1:
		g.log.Debug("gateway: a server's log message left out: calls of several clients are in flight on it", "server", server)
		return
	case owners == 1 && call.ss == nil:
		return // the fast path's call, which asked for no log
	}
	g.pass(server, noticeSize(p.Data), func() {
		if owners == 1 {
			// A client gone meanwhile misses the message; nothing to do.
			_ = call.ss.Log(call.ctx, &c)
			return
		}
		for _, ss := range g.liveSessions() {
			if name, ok := g.sessions.of(ss); ok && g.reaches(name, server) {
				_ = ss.Log(g.ctx, &c)
			}
		}
	})
}

// setLevel passes the log level a client asks for on to the servers that
// log, when it is more than they were asked for so far: a 2025-11-25
// client's logging/setLevel, or the level in a 2026-07-28 request's _meta,
// taken before the request is served. The servers are shared, so they
// send what the most verbose client wants, and go-sdk filters each
// client's share by its own level. A server of 2026-07-28 is told in each
// request's _meta (mcpclient's Notices.LogLevel); one before it, with a
// logging/setLevel of the gateway's own, for all its clients: no client's
// in flight.
func (g *Gateway) setLevel(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "logging/setLevel" {
			if level, _ := metaOf(req.GetParams())[mcp.MetaKeyLogLevel].(string); g.lowerLevel(mcp.LoggingLevel(level)) {
				g.tellLevel(ctx, mcp.LoggingLevel(level))
			}
		}
		res, err := next(ctx, method, req)
		if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok && err == nil && g.lowerLevel(p.Level) {
			g.tellLevel(ctx, p.Level)
		}
		return res, err
	}
}

// tellLevel asks the servers before 2026-07-28 that log to log at level.
func (g *Gateway) tellLevel(ctx context.Context, level mcp.LoggingLevel) {
	for _, sc := range g.cfg.Servers {
		pr, ok := g.ts.Provider(sc.Name)
		if !ok || pr.ServerCapabilities() == nil || pr.ServerCapabilities().Logging == nil || pr.ProtocolVersion() >= statelessVersion {
			continue
		}
		if _, err := pr.Request(ctx, "logging/setLevel", &mcp.SetLoggingLevelParams{Level: level}); err != nil {
			g.log.WarnContext(ctx, "gateway: log level not set", "server", sc.Name, "err", err)
		}
	}
}

// logLevel is the level the servers are asked to log at: the most verbose
// a client asked for.
func (g *Gateway) logLevel() mcp.LoggingLevel {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.served.level
}

// lowerLevel records level as the servers' if it is more verbose than
// theirs, and reports whether it was.
func (g *Gateway) lowerLevel(level mcp.LoggingLevel) bool {
	i := slices.Index(levels, level)
	g.mu.Lock()
	defer g.mu.Unlock()
	cur := slices.Index(levels, g.served.level)
	if i < 0 || (g.served.level != "" && i >= cur) {
		return false
	}
	g.served.level = level
	return true
}
