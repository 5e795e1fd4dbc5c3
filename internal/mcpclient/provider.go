package mcpclient

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/redact"
	"github.com/mcpbridge/mcpbridge/internal/stdio"
	"github.com/mcpbridge/mcpbridge/internal/telemetry"
	"github.com/mcpbridge/mcpbridge/tool"
)

// ErrConnected is returned by Connect on a provider that is already
// connected or connecting.
var ErrConnected = errors.New("provider already connected")

// ErrNotConnected is returned by a call on a provider that is not connected.
var ErrNotConnected = errors.New("provider not connected")

// A Provider is one MCP server as tools. Build it with [FromURL] or
// [FromCommand], call Connect, hand [Provider.Tools] and [Provider.Handler] to
// an agent (or [Provider.Offer], both at once), and Close it when done.
//
// Connect lists the server's tools once, following every page; nothing lists
// them again unless the server says they changed, so a call costs one
// request. A Provider is safe for concurrent use; Close may be called from
// any goroutine, any number of times.
//
// The server is treated as untrusted: its descriptions are cut to a
// maximum length, its schemas are kept whole (they validate arguments), and
// nothing it sends is logged above debug level. A schema keeps the server's
// order of properties, which models follow when they fill arguments (except
// over a transport of another kind than go-sdk's given to [FromTransport],
// where go-sdk's decoding puts them in name order).
type Provider struct {
	name   string
	dialer dialer
	opts   []Option // what cfg was made of (Around)
	cfg    config
	conn   supervisor // the connection: made, watched, rebuilt
	calls  progress   // the calls whose timeout progress restarts
	tasks  tasks      // the tasks followed for the host
	tel    *clientTelemetry
	// secrets are the values of its headers and environment and the
	// secret parts of its URL, masked in the server's words wherever the
	// provider quotes them (errors.go's classify, the transports).
	secrets redact.Secrets

	// What the host answers a server with: the calls a server's requests
	// belong to, the URL elicitations they wait for, the roots
	// (inflight.go, elicit.go, roots.go).
	inflight    inflight
	completions completions
	roots       rootSet

	pool pool // the HTTP connections to the server, without WithHTTPClient (http.go)
	// The raw calls' streams being read to their end after their answer
	// (raw.go).
	wire struct {
		once sync.Once
		caps map[string]any
	} // the capabilities as a relayed call declares them (relay.go)
	skills skillShelf // the Skills extension's client, for Offer (skills.go)
}

// FromURL returns a provider for the server at url, reached over streamable
// HTTP, or over the legacy SSE transport when the URL's path ends in /sse
// (unless [WithTransport] says otherwise).
func FromURL(url string, opts ...Option) *Provider {
	return newProvider(dialer{url: url}, opts)
}

// FromCommand returns a provider for a server it starts as a subprocess
// speaking MCP over stdio: command with args, run directly (no shell), with a
// minimal environment plus [WithEnv]. The process runs in its own process
// group and is stopped, with every process it started, by Close.
func FromCommand(command string, args []string, opts ...Option) *Provider {
	return newProvider(dialer{stdio: true, command: command, args: append([]string(nil), args...)}, opts)
}

// FromTransport returns a provider for a server reached over a go-sdk
// transport the caller builds: an in-memory pair in a test, a custom
// transport. The transport is used for one connection, so a provider built
// this way connects once. Options that only concern URLs or commands are
// refused at Connect.
func FromTransport(name string, t mcp.Transport, opts ...Option) *Provider {
	return newProvider(dialer{custom: t}, append([]Option{WithName(name)}, opts...))
}

// FromServer returns a provider for a go-sdk server in this process,
// reached over an in-memory pair of transports made anew at each connect
// (so it can reconnect): a server of the host's own, or one in a test.
// Closing the provider ends the server's session. Options that only
// concern URLs or commands are refused at Connect.
func FromServer(name string, s *mcp.Server, opts ...Option) *Provider {
	return newProvider(dialer{server: s}, append([]Option{WithName(name)}, opts...))
}

func newProvider(d dialer, opts []Option) *Provider {
	p := &Provider{dialer: d}
	p.setup(opts)
	return p
}

// Around makes p, not yet connected, as if it had been built with before,
// then the options it was built with, then after: what the catalog adds to
// a provider made from a user's mcptool.Options (a server's config before,
// so that the user's fields win; the catalog's and its host's own after).
func (p *Provider) Around(before, after []Option) {
	p.setup(slices.Concat(before, p.opts, after))
}

// setup configures p by opts, which it keeps for [Provider.Around].
func (p *Provider) setup(opts []Option) {
	d := p.dialer
	p.opts, p.cfg = opts, config{}
	for _, o := range opts {
		o(&p.cfg)
	}
	p.cfg.logger = telemetry.Logger(p.cfg.logger)
	p.name = p.cfg.name
	if p.name == "" {
		if d.command != "" {
			p.name = stdio.ServerName(d.command, d.args)
		} else if u, err := url.Parse(d.url); err == nil && u.Host != "" {
			p.name = u.Host
		} else {
			p.name = hostPart(d.url)
		}
	}
	p.secrets = redact.Secrets{}.With(slices.Collect(maps.Values(p.cfg.headers))...).
		With(slices.Collect(maps.Values(p.cfg.env))...).WithURL(d.url)
	p.tel = newClientTelemetry(p.name, d, &p.cfg)
	p.conn = supervisor{
		name:           p.name,
		logger:         p.cfg.logger,
		tel:            p.tel,
		dial:           p.dialTraced,
		refresh:        p.Refresh,
		onState:        p.cfg.onState,
		onToolsChanged: p.cfg.onToolsChanged,
		changed:        make(chan struct{}),
	}
	if p.cfg.reconnect != nil && d.custom == nil { // a given transport is used once
		r := p.cfg.reconnect.withDefaults()
		p.conn.reconnect = &r
	}
}

// hostPart names a server by a URL that does not parse as one with a host
// (most often one without its scheme: 127.0.0.1:3001/mcp) by what stands
// where its host would, never by its path or query, which may hold a key.
func hostPart(rawURL string) string {
	if i := strings.IndexAny(rawURL, "/?#"); i >= 0 {
		rawURL = rawURL[:i]
	}
	if i := strings.LastIndex(rawURL, "@"); i >= 0 {
		rawURL = rawURL[i+1:]
	}
	return cmp.Or(rawURL, "server")
}

// Name returns the provider's name for its server: [WithName], or else the
// URL's host, or for a command what it runs rather than the program that
// runs it (npx -y @modelcontextprotocol/server-memory is "server-memory",
// uvx mcp-server-fetch "mcp-server-fetch", node weather/build/index.js
// "weather", docker run -i --rm mcp/fetch "fetch"), no flag or flag value
// taken.
func (p *Provider) Name() string { return p.name }

// Connect connects to the server (starting it, for a command), makes the MCP
// handshake, and lists its tools, all within the connect timeout. If any step
// fails, everything already opened is closed (a started process is stopped)
// before the error returns. Connect on a connected provider returns
// [ErrConnected]; after Close, a provider may connect again.
func (p *Provider) Connect(ctx context.Context) error {
	return p.conn.start(ctx)
}

// Close ends the connection: an HTTP session is closed on the server, a
// started process and every process it started are stopped (stdin closed,
// then SIGTERM, then SIGKILL, each after a bounded wait), and the calls in
// flight fail; a task a call follows is cancelled on the server (within the
// request timeout). A Connect in progress is aborted. Close is idempotent
// and safe from any goroutine.
func (p *Provider) Close() error {
	p.conn.close()
	p.pool.close()
	return nil
}

// State returns where the provider's connection stands and, when it failed
// or is being rebuilt, why.
func (p *Provider) State() (State, error) { return p.conn.get() }

// Tools returns the definitions of the tools the server offers, in the
// server's order, after [WithToolFilter] and [WithAllowedTools], and
// without the tools an MCP App keeps for itself (visibility ["app"], see
// [tool.App]), which the host calls for the app ([Provider.CallToolResult]).
// The slice is a copy; it is empty before Connect and without discovery.
func (p *Provider) Tools() []tool.Definition {
	s := p.conn.current()
	if s == nil {
		return nil
	}
	return s.catalog().definitions()
}

// ToolNames returns the names of the tools [Provider.Tools] offers.
func (p *Provider) ToolNames() []string {
	s := p.conn.current()
	if s == nil {
		return nil
	}
	return append([]string(nil), s.catalog().offered...)
}

// ToolMeta returns each listed tool's _meta object (an MCP App's "ui" entry,
// say) from the current listing, by tool name. It covers the whole listing,
// filters aside, since a host reads it for tools the model does not see (an
// app-only tool a frame calls). Tools without _meta are left out.
func (p *Provider) ToolMeta() map[string]map[string]any {
	s := p.conn.current()
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
	if s := p.conn.current(); s != nil {
		return s.init.Instructions
	}
	return ""
}

// ServerInfo returns what the server said of itself when it connected (name,
// version, title), a copy; the zero value when not connected.
func (p *Provider) ServerInfo() mcp.Implementation {
	if s := p.conn.current(); s != nil && s.init.ServerInfo != nil {
		return deepCopy(*s.init.ServerInfo)
	}
	return mcp.Implementation{}
}

// ProtocolVersion returns the MCP protocol version negotiated at Connect.
func (p *Provider) ProtocolVersion() string {
	if s := p.conn.current(); s != nil {
		return s.init.ProtocolVersion
	}
	return ""
}

// ServerCapabilities returns the capabilities the server declared when it
// connected, a copy; nil when not connected.
func (p *Provider) ServerCapabilities() *mcp.ServerCapabilities {
	if s := p.conn.current(); s != nil && s.init.Capabilities != nil {
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
	var out T
	if remarshal(v, &out) != nil {
		return v
	}
	return out
}

// remarshal decodes into to what from encodes as: a copy, or the same
// message as another type (go-sdk converts some only unexported).
func remarshal(from, to any) error {
	data, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, to)
}
