package gateway

import (
	"context"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// levels are the MCP log levels, least severe first.
var levels = []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// forwardLog passes a server's log message on to every connected client
// that asked for messages of its level (go-sdk filters by each session's
// level), its logger named after the server.
func (g *Gateway) forwardLog(server string, p *mcp.LoggingMessageParams) {
	c := *p
	c.Logger = server
	if p.Logger != "" {
		c.Logger += "/" + p.Logger
	}
	for _, s := range g.servers() {
		for ss := range s.Sessions() {
			// A client gone meanwhile misses the message; nothing to do.
			_ = ss.Log(g.ctx, &c)
		}
	}
}

// setLevel passes a client's logging/setLevel on to the servers that log,
// when it asks for more than they were asked for so far: the servers are
// shared, so they send what the most verbose client wants, and go-sdk
// filters each client's share by its own level.
func (g *Gateway) setLevel(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		p, ok := req.GetParams().(*mcp.SetLoggingLevelParams)
		if err != nil || !ok || !g.lowerLevel(p.Level) {
			return res, err
		}
		for _, sc := range g.cfg.Servers {
			pr, ok := g.ts.Provider(sc.Name)
			if !ok || pr.ServerCapabilities() == nil || pr.ServerCapabilities().Logging == nil {
				continue
			}
			if _, err := pr.Request(ctx, "logging/setLevel", &mcp.SetLoggingLevelParams{Level: p.Level}); err != nil {
				g.log.WarnContext(ctx, "gateway: log level not set", "server", sc.Name, "err", err)
			}
		}
		return res, err
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
