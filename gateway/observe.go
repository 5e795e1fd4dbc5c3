package gateway

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// observe is the middleware every request a client sends goes through: it
// is refused while draining, counted while in flight (a listen for
// notifications aside), and logged when done (method, what it concerns,
// client, duration, outcome), in the audit log too.
func (g *Gateway) observe(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		start := time.Now()
		ctx, answered := g.observed(ctx, req) // audit.go
		draining := &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: ErrDraining.Error()}
		if g.drain.isDraining() {
			g.logRequest(ctx, method, subject(req), client(req), start, false, draining)
			return nil, draining
		}
		// A subscriptions/listen lasts as long as its client listens: it is
		// no call to wait for, and closing the listener ends it.
		if method != "subscriptions/listen" {
			if !g.drain.enter() {
				g.logRequest(ctx, method, subject(req), client(req), start, false, draining)
				return nil, draining
			}
			defer g.drain.leave()
		}
		res, err := next(ctx, method, req)
		answered(ctx, res)
		r, ok := res.(*mcp.CallToolResult)
		g.logRequest(ctx, method, subject(req), client(req), start, ok && r != nil && r.IsError, err)
		return res, err
	}
}

// logRequest makes the one log record of a request served or refused:
// method, what it concerns, client, duration, outcome; and its audit
// record (audit.go).
func (g *Gateway) logRequest(ctx context.Context, method, subject, client string, start time.Time, isError bool, err error) {
	if g.audit != nil {
		g.record(ctx, method, subject, client, time.Since(start), isError, err)
	}
	if !g.log.Enabled(ctx, slog.LevelInfo) {
		return
	}
	attrs := []slog.Attr{slog.String("method", method), slog.Duration("duration", time.Since(start))}
	if subject != "" {
		attrs = append(attrs, slog.String("subject", subject))
	}
	if client != "" {
		attrs = append(attrs, slog.String("client", client))
	}
	level := slog.LevelInfo
	if err != nil {
		level = slog.LevelWarn
		attrs = append(attrs, slog.String("err", err.Error()))
	} else if isError {
		attrs = append(attrs, slog.Bool("is_error", true))
	}
	g.log.LogAttrs(ctx, level, "gateway: request", attrs...)
}

// subject is what a request concerns: a tool, a resource, a prompt.
func subject(req mcp.Request) string {
	switch p := req.GetParams().(type) {
	case *mcp.CallToolParamsRaw:
		return p.Name
	case *mcp.ReadResourceParams:
		return p.URI
	case *mcp.GetPromptParams:
		return p.Name
	}
	return ""
}

// client is the name of the client that sent req, from its bearer token,
// or "" when the endpoint takes no token.
func client(req mcp.Request) string {
	if extra := req.GetExtra(); extra != nil && extra.TokenInfo != nil {
		return extra.TokenInfo.UserID
	}
	return ""
}
