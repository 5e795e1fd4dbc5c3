package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
)

// resend sends a call again whose exchange on s was lost: on s if it
// still holds, else on the rebuilt connection once it is ready.
func (p *Provider) resend(ctx context.Context, s *session, holds bool, name string, args json.RawMessage, model bool) (res *mcp.CallToolResult, err error) {
	ctx, done := p.tel.resending(ctx, name)
	defer func() { done(err) }()
	next := s
	if !holds {
		var werr error
		if next, werr = p.conn.waitReady(ctx); werr != nil {
			return nil, p.classify(operation{"tools/call", name}.String(), werr, false)
		}
	}
	p.cfg.logger.InfoContext(ctx, "the exchange was lost during a call; sending it again", "server", p.name, "tool", name)
	return p.callOnce(ctx, next, name, args, model)
}

// lostExchange reports whether err says that the exchange of a call with
// the server was lost, rather than the call failing on a live connection
// (an HTTP status, say): the connection ended, or the HTTP request or the
// stream of its answer was cut.
func lostExchange(ctx context.Context, err error) bool {
	var te *TransportError
	return errors.As(err, &te) && !te.Timeout() && ctx.Err() == nil && connectionGone(err)
}

// connectionGone reports whether err says the connection, or the exchange
// of one request on it, ended: go-sdk closed it, the server forgot the HTTP
// session, a stdio server's output ended (its process exited), or an HTTP
// connection was cut (a server restarting), which go-sdk reports as an EOF
// or a reset of the request, or, for a stream it cannot resume, in text
// alone ([sdkfix.StreamLost]).
func connectionGone(err error) bool {
	return errors.Is(err, mcp.ErrConnectionClosed) ||
		errors.Is(err, mcp.ErrSessionMissing) ||
		errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) ||
		sdkfix.StreamLost(err)
}

// holds reports whether the session s still answers after a call's
// exchange on it was lost. go-sdk fails the call as soon as the exchange
// breaks, before the session reports its end (a stdio server that exited)
// or without it ever doing so (an HTTP server that restarted learns that it
// forgot the session only at the next request; one that went away, never).
// A ping tells. A session that does not answer is closed, so that the
// provider rebuilds it if it reconnects, and holds returns once it has
// ended; one whose caller gave up is left as it is.
//
// Protocol 2026-07-28 has no ping, and nothing to forget: over HTTP each
// request stands alone, and a server that went away fails the next one;
// over a stream, an exchange is lost only with the stream, whose end the
// session reports.
func (p *Provider) holds(ctx context.Context, s *session) bool {
	select {
	case <-s.done:
		return false
	default:
	}
	if s.init.ProtocolVersion >= "2026-07-28" {
		if p.dialer.url != "" {
			return true
		}
		wait, stop := ctx, func() {}
		if d := p.cfg.requestTimeout(); d > 0 {
			wait, stop = context.WithTimeout(ctx, d)
		}
		defer stop()
		select {
		case <-s.done:
		case <-wait.Done():
		}
		return false
	}
	err := p.request(ctx, s, operation{"ping", ""}, p.cfg.requestTimeout(), func(ctx context.Context, _ func()) error {
		return s.cs.Ping(ctx, nil)
	})
	if err == nil {
		return true
	}
	if ctx.Err() == nil {
		p.cfg.logger.InfoContext(ctx, "the server does not answer on the session that lost a call; closing it", "server", p.name, "error", err)
		s.conn.Close()
		select {
		case <-s.done:
		case <-ctx.Done():
		}
	}
	return false
}
