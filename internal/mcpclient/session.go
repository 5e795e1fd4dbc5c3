package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
	"github.com/mcpbridge/mcpbridge/internal/stdio"
)

// clientInfo is how mcpbridge introduces itself to servers.
var clientInfo = mcp.Implementation{Name: "mcpbridge", Version: "0.1.0"}

// session is one live connection and what was learnt on it.
type session struct {
	cs      *mcp.ClientSession
	conn    mcp.Connection // the transport's, unwrapped
	schemas *sdkfix.Schemas
	init    *mcp.InitializeResult
	client  *mcp.Client
	cat     atomic.Pointer[catalog]
	done    chan struct{} // closed when the connection ends
	clock   *sessionClock // telemetry.go
	tasks   taskSupport   // taskwire.go
	caller  sdkfix.Caller // the connection, for calls past go-sdk (rawcall.go), or nil
	sent    atomic.Int64  // calls sent past go-sdk: their IDs
	// info and caps are the members of _meta a call past go-sdk writes
	// for the client, encoded, or nil (rawcall.go).
	info, caps []byte

	customMu sync.Mutex
	custom   map[string]bool // methods registered for Request
}

// dial makes a new session: it connects (starting the server, for a
// command), makes the handshake and lists the tools, within the connect
// timeout. On failure, everything opened is closed.
func (p *Provider) dial(parent context.Context) (*session, error) {
	if err := p.cfg.check(p.name); err != nil {
		return nil, err
	}
	schemas := sdkfix.NewSchemas()
	t, x, err := p.transport(schemas)
	if err != nil {
		return nil, err
	}
	ctx := parent
	if d := p.cfg.connectTimeout(); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(parent, d)
		defer cancel()
	}
	if p.dialer.command != "" {
		// The command alone: its arguments may carry secrets.
		p.cfg.logger.InfoContext(ctx, "starting MCP server", "server", p.name, "command", p.dialer.command)
	} else {
		p.cfg.logger.InfoContext(ctx, "connecting to MCP server", "server", p.name, "transport", fmt.Sprintf("%T", t))
	}
	captured := &sdkfix.Capture{Transport: t, Schemas: schemas, Unheard: p.unheard()}
	copts := &mcp.ClientOptions{
		Logger:                      slog.New(sdkfix.DebugOnly(p.cfg.logger.Handler(), p.secrets)),
		ToolListChangedHandler:      func(context.Context, *mcp.ToolListChangedRequest) { p.conn.listChanged() },
		ProgressNotificationHandler: p.calls.progressed,
	}
	p.cfg.notices.set(copts)
	client := p.newClient(copts, schemas) // hostio.go adds what the host answers for its user
	p.cfg.notices.askLevel(client)
	p.instrument(client, captured)
	// A write the peer never reads ignores its context on some transports
	// (an in-memory pipe, a caller's own): the connect timeout closes the
	// connection, which ends it, until the session is made.
	abandon := context.AfterFunc(ctx, func() {
		if c := captured.Conn(); c != nil {
			c.Close()
		}
	})
	defer abandon()
	cs, err := client.Connect(ctx, captured, nil)
	if err != nil {
		return nil, p.connectError(ctx, parent, captured.Conn(), x.blame(err))
	}
	sess := &session{cs: cs, client: client, conn: captured.Conn(), schemas: schemas, init: cs.InitializeResult(), done: make(chan struct{}), caller: captured.Caller()}
	sess.tasks = negotiateTasks(sess.init, schemas.Capabilities())
	p.callMeta(sess)
	go func() {
		cs.Wait()
		close(sess.done)
	}()
	cat := &catalog{}
	if !p.cfg.noDiscovery {
		if cat, err = p.discover(ctx, sess); err != nil {
			sess.close()
			return nil, p.connectError(ctx, parent, sess.conn, x.blame(err))
		}
	}
	if !abandon() {
		// The timeout passed as the tools were listed: the connection is
		// closed.
		sess.close()
		return nil, p.connectError(ctx, parent, sess.conn, context.Cause(ctx))
	}
	sess.cat.Store(cat)
	p.cfg.logger.InfoContext(ctx, "connected to MCP server", "server", p.name,
		"protocol", sess.init.ProtocolVersion, "tools", len(cat.offered))
	return sess, nil
}

// capabilities are the extensions the client speaks: tasks, which the
// server decides on per request, and apps when the host renders them.
// newClient adds what the host answers, and only what it answers.
func (p *Provider) capabilities() *mcp.ClientCapabilities {
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension(tasksExtension, map[string]any{})
	if p.cfg.apps {
		caps.AddExtension(AppsExtension, map[string]any{"mimeTypes": []string{AppMIMEType}})
	}
	return caps
}

// connectError names a failed connect, adding why the process ended when
// a stdio server exited.
func (p *Provider) connectError(ctx, parent context.Context, conn mcp.Connection, err error) error {
	if done := ctx.Err(); done != nil && !errors.Is(err, done) {
		// dial closed the connection as ctx ended: what the connection
		// says of it (closed, EOF) says no more than ctx does.
		err = done
	}
	expired := ctx.Err() == context.DeadlineExceeded && parent.Err() == nil
	// Copied from a server's "listening on" line, say: the server
	// answered, but not at its root. The URL is not quoted (a key).
	noPath := parent.Err() == nil && p.dialer.pathless()
	refusal := errors.As(err, new(*sdkfix.Refusal)) // noted below, where the endpoint is in doubt
	switch {
	case expired:
		err = fmt.Errorf("no answer within %v: %w", p.cfg.connectTimeout(), err)
	case noPath && !refusal && !retryable(err):
		err = fmt.Errorf("%w (%s)", err, pathNote)
	}
	err = p.classify("connect", explain(conn, err), expired)
	if he := (*HTTPError)(nil); noPath && errors.As(err, &he) {
		he.notePath()
	}
	return err
}

// explain adds what a stdio connection knows of a failure it caused: how
// the server process ended, that it stopped reading its stdin. A JSON-RPC
// error the server answered is left as it is: the server is running, and
// what it wrote before (its stderr, a banner) is not why.
func explain(conn mcp.Connection, err error) error {
	if wire := (*jsonrpc.Error)(nil); errors.As(err, &wire) && !sdkfix.Undelivered(err) {
		return err
	}
	if ex, ok := conn.(interface{ Explain(error) error }); ok {
		return ex.Explain(err)
	}
	return err
}

// unquoted is an explained error of a request the caller's context ended,
// without the server's words: how the process stands (exited, not reading
// its stdin) may be why it did not answer, but what it wrote (its stderr, a
// banner) is not why the caller gave up.
func unquoted(err error) error {
	se, ok := err.(*stdio.ServerError)
	if !ok {
		return err
	}
	if (se.Exit == nil || se.Stopped) && !se.NotReading {
		return se.Err
	}
	quiet := *se
	quiet.Stdout, quiet.Stderr = nil, nil
	return &quiet
}

// catalog is the session's current listing.
func (s *session) catalog() *catalog { return s.cat.Load() }

// ended reports whether the connection has ended.
func (s *session) ended() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// close ends the session. The connection goes first: go-sdk's Close waits
// for calls in flight, and a call blocked writing to a server that does not
// read ends only when the connection does.
func (s *session) close() {
	if s.conn != nil {
		s.conn.Close()
	}
	s.cs.Close()
	<-s.done
}

// An operation names what a request does, for errors: a method and, if it
// has one, its subject (a tool name, a URI). It is formatted only when an
// error needs it, keeping the call path free of formatting.
type operation struct{ method, subject string }

func (o operation) String() string {
	if o.subject == "" {
		return o.method
	}
	return fmt.Sprintf("%s %q", o.method, o.subject)
}

// request runs fn on the session s under the timeout d (none if d is 0)
// and names its error. fn may call extend to restart the timeout, as a tool
// call does whenever the server reports progress on it.
//
// A request made for a [Caller] with a relay counts as in flight until it
// returns, whatever its method: a request the server sends meanwhile may
// be its client's, and is no single client's while requests of several
// are in flight (relay.go).
func (p *Provider) request(ctx context.Context, s *session, op operation, d time.Duration, fn func(ctx context.Context, extend func()) error) error {
	if callerOf(ctx).Relay != nil && frameKey.Value(ctx) == nil {
		f := p.inflight.begin(ctx, op.String())
		defer p.inflight.end(f)
		ctx = f.ctx
	}
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var expired atomic.Bool
	extend := func() {}
	if d > 0 {
		timer := time.AfterFunc(d, func() {
			expired.Store(true)
			cancel(errTimedOut)
		})
		defer timer.Stop()
		extend = func() {
			if !expired.Load() {
				timer.Reset(d)
			}
		}
	}
	err := fn(rctx, extend)
	if err == nil {
		return nil
	}
	timedOut := expired.Load() && ctx.Err() == nil
	if timedOut {
		err = fmt.Errorf("no answer within %v: %w", d, context.DeadlineExceeded)
	}
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return p.classify(op.String(), unquoted(explain(s.conn, err)), false)
	}
	return p.classify(op.String(), explain(s.conn, err), timedOut)
}
