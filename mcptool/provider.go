package mcptool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/tool"
)

// ErrConnected is returned by Connect on a provider that is already
// connected or connecting.
var ErrConnected = errors.New("provider already connected")

// ErrNotConnected is returned by a call on a provider that is not connected.
var ErrNotConnected = errors.New("provider not connected")

// clientInfo is how mcpbridge introduces itself to servers.
var clientInfo = mcp.Implementation{Name: "mcpbridge", Version: "0.1.0"}

// A Provider is one MCP server as tools. Build it with [FromURL] or
// [FromCommand], call Connect, hand [Provider.Tools] and [Provider.Handler] to
// an agent, and Close it when done.
//
// Connect lists the server's tools once, following every page; nothing lists
// them again, so a call costs one request. A Provider is safe for concurrent
// use; Close may be called from any goroutine, any number of times.
//
// The server is treated as untrusted: its descriptions are cut to a
// maximum length, its schemas are kept whole (they validate arguments), and
// nothing it sends is logged above debug level. A schema keeps the server's
// order of properties, which models follow when they fill arguments (except
// over a transport of another kind than go-sdk's given to [FromTransport],
// where go-sdk's decoding puts them in name order).
type Provider struct {
	name    string
	url     string
	command string
	args    []string
	custom  mcp.Transport
	cfg     config

	mu         sync.Mutex
	sess       *session
	connecting chan struct{} // closed when a Connect in progress returns
	abort      context.CancelFunc
	state      State
	stateErr   error
	changed    chan struct{}   // closed and replaced at every state change
	life       context.Context // from Connect to Close: the background work's
	stop       context.CancelFunc

	notifyMu  sync.Mutex     // serializes the state and tools callbacks
	bg        sync.WaitGroup // the supervisor and the refresher
	refreshes chan struct{}  // list_changed notifications, coalesced
	tokens    atomic.Int64   // progress tokens
	progress  sync.Map       // progress token -> func() extending its call
}

// session is one live connection and what was learnt on it.
type session struct {
	cs      *mcp.ClientSession
	conn    mcp.Connection
	schemas *schemaKeeper
	init    *mcp.InitializeResult
	client  *mcp.Client
	cat     atomic.Pointer[catalog]
	done    chan struct{} // closed when the connection ends

	customMu sync.Mutex
	custom   map[string]bool // methods registered for Request
}

// FromURL returns a provider for the server at url, reached over streamable
// HTTP, or over the legacy SSE transport when the URL's path ends in /sse
// (unless [WithTransport] says otherwise).
func FromURL(url string, opts ...Option) *Provider {
	p := &Provider{url: url, cfg: defaults()}
	p.apply(opts)
	return p
}

// FromCommand returns a provider for a server it starts as a subprocess
// speaking MCP over stdio: command with args, run directly (no shell), with a
// minimal environment plus [WithEnv]. The process runs in its own process
// group and is stopped, with every process it started, by Close.
func FromCommand(command string, args []string, opts ...Option) *Provider {
	p := &Provider{command: command, args: append([]string(nil), args...), cfg: defaults()}
	p.cfg.transport = Stdio
	p.apply(opts)
	return p
}

// FromTransport returns a provider for a server reached over a go-sdk
// transport the caller builds: an in-memory pair in a test, a custom
// transport. The transport is used for one connection, so a provider built
// this way connects once. Options that only concern URLs or commands are
// refused at Connect.
func FromTransport(name string, t mcp.Transport, opts ...Option) *Provider {
	p := &Provider{custom: t, cfg: defaults()}
	p.apply(append([]Option{WithName(name)}, opts...))
	return p
}

// apply completes a new provider: every constructor calls it.
func (p *Provider) apply(opts []Option) {
	p.changed = make(chan struct{})
	for _, o := range opts {
		o(&p.cfg)
	}
	if p.cfg.logger == nil {
		p.cfg.logger = slog.New(slog.DiscardHandler)
	}
	p.name = p.cfg.name
	if p.name == "" {
		if p.command != "" {
			p.name = filepath.Base(p.command)
		} else if u, err := url.Parse(p.url); err == nil && u.Host != "" {
			p.name = u.Host
		} else {
			p.name = p.url
		}
	}
}

// Name returns the provider's name for its server: [WithName], or else the
// URL's host or the command's base name.
func (p *Provider) Name() string { return p.name }

// Connect connects to the server (starting it, for a command), makes the MCP
// handshake, and lists its tools, all within the connect timeout. If any step
// fails, everything already opened is closed (a started process is stopped)
// before the error returns. Connect on a connected provider returns
// [ErrConnected]; after Close, a provider may connect again.
func (p *Provider) Connect(ctx context.Context) error {
	p.mu.Lock()
	if p.sess != nil || p.connecting != nil {
		p.mu.Unlock()
		return fmt.Errorf("mcptool: server %q: connect: %w", p.name, ErrConnected)
	}
	ctx, cancel := context.WithCancel(ctx)
	connecting := make(chan struct{})
	p.connecting, p.abort = connecting, cancel
	p.mu.Unlock()
	p.setState(StateConnecting, nil)

	sess, err := p.connect(ctx)

	p.mu.Lock()
	aborted := p.abort == nil // Close ran meanwhile
	p.connecting, p.abort = nil, nil
	if err == nil && !aborted {
		p.sess = sess
		p.life, p.stop = context.WithCancel(context.Background())
		p.refreshes = make(chan struct{}, 1)
		p.bg.Add(2)
		go p.supervise(p.life, sess)
		go p.refresher(p.life, p.refreshes)
	}
	p.mu.Unlock()
	close(connecting)
	cancel()
	switch {
	case err == nil && aborted:
		sess.close()
		err = fmt.Errorf("mcptool: server %q: connect: closed while connecting", p.name)
		p.setState(StateClosed, nil)
	case err != nil:
		p.setState(StateFailed, err)
	default:
		p.setState(StateReady, nil)
	}
	return err
}

func (p *Provider) connect(parent context.Context) (*session, error) {
	keeper := newSchemaKeeper()
	t, err := p.transport(keeper)
	if err != nil {
		return nil, err
	}
	if p.cfg.allowedSet && len(p.cfg.allowedTools) == 0 {
		return nil, &ConfigError{Server: p.name, Option: "allowed tools", Err: errors.New("empty list: the server would offer nothing")}
	}
	if p.cfg.maxPages < 1 {
		return nil, &ConfigError{Server: p.name, Option: "max pages", Err: fmt.Errorf("%d: want at least 1", p.cfg.maxPages)}
	}
	ctx := parent
	if p.cfg.connectTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(parent, p.cfg.connectTimeout)
		defer cancel()
	}
	if p.command != "" {
		// The command alone: its arguments may carry secrets.
		p.cfg.logger.Info("starting MCP server", "server", p.name, "command", p.command)
	} else {
		p.cfg.logger.Info("connecting to MCP server", "server", p.name, "transport", fmt.Sprintf("%T", t))
	}
	captured := &capture{Transport: t, keeper: keeper}
	client := mcp.NewClient(&clientInfo, &mcp.ClientOptions{
		// Claim no capability this client does not have (no roots,
		// sampling or elicitation).
		Capabilities:                &mcp.ClientCapabilities{},
		Logger:                      slog.New(debugOnly{p.cfg.logger.Handler()}),
		ToolListChangedHandler:      func(context.Context, *mcp.ToolListChangedRequest) { p.listChanged() },
		ProgressNotificationHandler: p.progressed,
		ElicitationHandler:          p.cfg.elicit,
	})
	cs, err := client.Connect(ctx, captured, nil)
	if err != nil {
		captured.close()
		return nil, p.connectError(ctx, parent, captured, err)
	}
	sess := &session{cs: cs, client: client, conn: captured.connection(), schemas: keeper, init: cs.InitializeResult(), done: make(chan struct{})}
	go func() {
		cs.Wait()
		close(sess.done)
	}()
	cat := &catalog{}
	if p.cfg.discover {
		if cat, err = p.discover(ctx, sess); err != nil {
			sess.close()
			return nil, p.connectError(ctx, parent, captured, err)
		}
	}
	sess.cat.Store(cat)
	p.cfg.logger.Info("connected to MCP server", "server", p.name,
		"protocol", sess.init.ProtocolVersion, "tools", len(cat.offered))
	return sess, nil
}

// connectError names a failed connect, adding why the process ended when
// a stdio server exited.
func (p *Provider) connectError(ctx, parent context.Context, c *capture, err error) error {
	expired := ctx.Err() == context.DeadlineExceeded && parent.Err() == nil
	if expired {
		err = fmt.Errorf("no answer within %v: %w", p.cfg.connectTimeout, err)
	}
	return classify(p.name, "connect", explain(c.connection(), err), expired)
}

// explain adds what a stdio connection knows of a failure it caused: how
// the server process ended, that it stopped reading its stdin.
func explain(conn mcp.Connection, err error) error {
	if ex, ok := conn.(interface{ Explain(error) error }); ok {
		return ex.Explain(err)
	}
	return err
}

// catalog is the session's current listing.
func (s *session) catalog() *catalog { return s.cat.Load() }

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

// Close ends the connection: an HTTP session is closed on the server, a
// started process and every process it started are stopped (stdin closed,
// then SIGTERM, then SIGKILL, each after a bounded wait). A Connect in
// progress is aborted. Close is idempotent and safe from any goroutine.
func (p *Provider) Close() error {
	p.mu.Lock()
	sess, connecting, abort, stop := p.sess, p.connecting, p.abort, p.stop
	p.sess, p.abort, p.stop = nil, nil, nil
	p.mu.Unlock()
	if abort != nil {
		abort()
		<-connecting
	}
	if stop != nil {
		stop()
	}
	if sess != nil {
		sess.close()
	}
	// The supervisor may have swapped in a new session before it saw the
	// stop; it closes that one itself.
	p.bg.Wait()
	if sess != nil {
		p.cfg.logger.Info("closed MCP server", "server", p.name)
		p.setState(StateClosed, nil)
	}
	return nil
}

// Connected reports whether the provider is connected and the connection
// is live: Connect succeeded, Close has not been called, and the server has
// not gone away.
func (p *Provider) Connected() bool {
	s := p.session()
	if s == nil {
		return false
	}
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

func (p *Provider) session() *session {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sess
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

// live returns the current session, or an error naming op: not connected,
// or the connection lost (and being rebuilt, if the provider reconnects).
func (p *Provider) live(op operation) (*session, error) {
	p.mu.Lock()
	s, state, why := p.sess, p.state, p.stateErr
	p.mu.Unlock()
	if s == nil {
		return nil, &TransportError{Server: p.name, Op: op.String(), Err: ErrNotConnected}
	}
	select {
	case <-s.done:
	default:
		return s, nil
	}
	if why == nil {
		why = explain(s.conn, mcp.ErrConnectionClosed)
	}
	if state == StateReconnecting {
		return nil, &TransportError{Server: p.name, Op: op.String(), retryable: true, Err: fmt.Errorf("the connection was lost and is being rebuilt: %w", why)}
	}
	return nil, &TransportError{Server: p.name, Op: op.String(), retryable: true, Err: fmt.Errorf("the connection was lost: %w", why)}
}

// request runs fn under the timeout d (none if d <= 0) and names its
// error. fn may call extend to restart the timeout, as a tool call does
// whenever the server reports progress on it.
func (p *Provider) request(ctx context.Context, s *session, op operation, d time.Duration, fn func(ctx context.Context, extend func()) error) error {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var expired atomic.Bool
	extend := func() {}
	if d > 0 {
		timer := time.AfterFunc(d, func() {
			expired.Store(true)
			cancel()
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
	return classify(p.name, op.String(), explain(s.conn, err), timedOut)
}

// Tools returns the definitions of the tools the server offers, in the
// server's order, after [WithToolFilter] and [WithAllowedTools]. The slice is
// a copy; it is empty before Connect and without discovery.
func (p *Provider) Tools() []tool.Definition {
	s := p.session()
	if s == nil {
		return nil
	}
	return s.catalog().definitions()
}

// ToolNames returns the names of the tools [Provider.Tools] offers.
func (p *Provider) ToolNames() []string {
	s := p.session()
	if s == nil {
		return nil
	}
	return append([]string(nil), s.catalog().offered...)
}

// ToolMeta returns each listed tool's _meta object (an MCP App's "ui" entry,
// say) from the listing made at Connect, by tool name. It covers the whole
// listing, filters aside, since a host reads it for tools the model does not
// see (an app-only tool a frame calls). Tools without _meta are left out.
func (p *Provider) ToolMeta() map[string]map[string]any {
	s := p.session()
	meta := map[string]map[string]any{}
	if s == nil {
		return meta
	}
	for name, t := range s.catalog().listed {
		if len(t.def.Meta) > 0 {
			meta[name] = deepCopy(t.def.Meta)
		}
	}
	return meta
}

// Instructions returns what the server published, when it connected, on how
// to use its tools, or "" if it published nothing. It is the server's text:
// hand it to a model inside a block it cannot close (package agent does).
func (p *Provider) Instructions() string {
	if s := p.session(); s != nil {
		return s.init.Instructions
	}
	return ""
}

// ServerInfo returns what the server said of itself when it connected (name,
// version, title), a copy; the zero value when not connected.
func (p *Provider) ServerInfo() mcp.Implementation {
	if s := p.session(); s != nil && s.init.ServerInfo != nil {
		return deepCopy(*s.init.ServerInfo)
	}
	return mcp.Implementation{}
}

// ProtocolVersion returns the MCP protocol version negotiated at Connect.
func (p *Provider) ProtocolVersion() string {
	if s := p.session(); s != nil {
		return s.init.ProtocolVersion
	}
	return ""
}

// ServerCapabilities returns the capabilities the server declared when it
// connected, a copy; nil when not connected.
func (p *Provider) ServerCapabilities() *mcp.ServerCapabilities {
	if s := p.session(); s != nil && s.init.Capabilities != nil {
		c := deepCopy(*s.init.Capabilities)
		return &c
	}
	return nil
}

// ServerExtensions returns the extensions the server declared when it
// connected (capabilities.extensions), by identifier, a copy. It is empty
// when the server declared none.
func (p *Provider) ServerExtensions() map[string]any {
	if c := p.ServerCapabilities(); c != nil && c.Extensions != nil {
		return c.Extensions
	}
	return map[string]any{}
}

// deepCopy copies a JSON-shaped value through its encoding, so a caller can
// never modify what the provider keeps.
func deepCopy[T any](v T) T {
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out T
	if json.Unmarshal(data, &out) != nil {
		return v
	}
	return out
}
