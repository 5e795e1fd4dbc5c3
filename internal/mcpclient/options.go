package mcpclient

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/tool"
)

// TransportKind names how a [Provider] reaches its server. (It is not
// go-sdk's [mcp.Transport], the connection maker [FromTransport] takes.)
type TransportKind string

// The transports a [Provider] speaks.
const (
	// StreamableHTTP is the MCP streamable HTTP transport, the default for a URL.
	StreamableHTTP TransportKind = "streamable_http"
	// SSE is the legacy HTTP+SSE transport (protocol 2024-11-05), chosen for
	// a URL whose path ends in /sse unless a transport is given.
	SSE TransportKind = "sse"
	// Stdio is a subprocess speaking MCP on its stdin and stdout, set by
	// [FromCommand].
	Stdio TransportKind = "stdio"
)

// Defaults of the provider's limits.
const (
	// DefaultConnectTimeout bounds Connect: starting or reaching the server,
	// the handshake and the tool listing.
	DefaultConnectTimeout = 60 * time.Second
	// DefaultRequestTimeout bounds each request (a tool call, a resource
	// read, a raw request) whose context has no earlier deadline.
	DefaultRequestTimeout = 30 * time.Second
	// DefaultMaxPages bounds how many pages of a listing the provider follows.
	DefaultMaxPages = 100
	// DefaultMaxDescription is how many characters (runes) of a tool's
	// description are kept; the rest is cut, so a server cannot inflate
	// every prompt that carries its tools.
	DefaultMaxDescription = 2048
	// DefaultMaxMessageSize is the largest message, in bytes, a server may
	// send; a larger one fails the request it answers.
	DefaultMaxMessageSize = 16 << 20
)

// An Option configures a [Provider]. The zero value of every setting is
// its default: an option given zero (WithMaxPages(0), WithCallTimeout(0))
// changes nothing. A negative timeout means no bound but the caller's
// context; a negative size or count, a bound that protects the host from
// the server, is refused at Connect with a [ConfigError] naming it.
type Option func(*config)

// config is what the options set, as given: zero for a default. The methods
// below read it with the defaults applied.
type config struct {
	name           string
	transport      TransportKind
	headers        map[string]string
	httpClient     *http.Client
	toolFilter     func(name string) bool
	allowedTools   []string // nil: every tool; set, never nil
	env            map[string]string
	dir            string
	stderr         io.Writer
	noDiscovery    bool
	connect        time.Duration
	request        time.Duration
	call           time.Duration
	pages          int
	listed         int // items of one listing in all (WithMaxListing)
	listedBytes    int // and their bytes
	description    int
	messageSize    int
	logger         *slog.Logger
	reconnect      *Reconnect
	onState        func(State, error)
	onToolsChanged func()
	oauth          auth.OAuthHandler
	elicit         tool.Elicitor        // elicit.go
	sampling       *Sampling            // sampling.go
	roots          *[]Root              // roots.go; nil: no roots capability
	relay          bool                 // relay.go
	apps           bool                 // apps.go
	notices        Notices              // notices.go
	tracerProvider trace.TracerProvider // telemetry.go
	meterProvider  metric.MeterProvider
	callContent    bool
}

// timeout is the bound a timeout option stands for: def for zero, none (0)
// for a negative one.
func timeout(d, def time.Duration) time.Duration {
	switch {
	case d == 0:
		return def
	case d < 0:
		return 0
	}
	return d
}

func (c *config) connectTimeout() time.Duration { return timeout(c.connect, DefaultConnectTimeout) }
func (c *config) requestTimeout() time.Duration { return timeout(c.request, DefaultRequestTimeout) }

// callTimeout is the call timeout, or else the request timeout.
func (c *config) callTimeout() time.Duration { return timeout(c.call, c.requestTimeout()) }

func (c *config) maxPages() int       { return cmp.Or(c.pages, DefaultMaxPages) }
func (c *config) maxListed() int      { return cmp.Or(c.listed, defaultMaxListed) }
func (c *config) maxListedBytes() int { return cmp.Or(c.listedBytes, defaultMaxListedBytes) }
func (c *config) maxDescription() int { return cmp.Or(c.description, DefaultMaxDescription) }
func (c *config) maxMessageSize() int { return cmp.Or(c.messageSize, DefaultMaxMessageSize) }

// check refuses the settings no connection can be made with, naming the
// option at fault.
func (c *config) check(server string) error {
	bad := func(option string, err error) error { return &ConfigError{Server: server, Option: option, Err: err} }
	for _, b := range []struct {
		option string
		n      int
	}{{"max pages", c.pages}, {"max listing items", c.listed}, {"max listing bytes", c.listedBytes},
		{"max description", c.description}, {"max message size", c.messageSize}} {
		if b.n < 0 {
			return bad(b.option, fmt.Errorf("%d: negative, and this bound protects the host from the server, so it cannot be lifted", b.n))
		}
	}
	if c.allowedTools != nil && len(c.allowedTools) == 0 {
		return bad("allowed tools", errors.New("empty list: the server would offer nothing"))
	}
	if r := c.reconnect; r != nil && (r.MinDelay < 0 || r.MaxDelay < 0) {
		return bad("reconnect", fmt.Errorf("delays %v and %v: a delay cannot be negative", r.MinDelay, r.MaxDelay))
	}
	return c.checkHost(bad) // hostio.go
}

// WithName sets the provider's name for the server, used in every error and
// log line. The default is the URL's host, or the name of what the command
// runs (see [Provider.Name]).
func WithName(name string) Option { return func(c *config) { c.name = name } }

// WithTransport chooses the HTTP transport for [FromURL], overriding the
// choice by URL path. [Stdio] is for [FromCommand] only.
func WithTransport(t TransportKind) Option { return func(c *config) { c.transport = t } }

// WithHeaders adds HTTP headers sent with every request of either HTTP
// transport (an Authorization header, say). Later calls add to earlier ones.
// Header values never appear in logs or errors, and go only to the origin
// of the server's URL: a redirect to another origin, or a legacy SSE
// endpoint there, is refused with an error naming both, and nothing is sent.
func WithHeaders(headers map[string]string) Option {
	return func(c *config) {
		if c.headers == nil {
			c.headers = make(map[string]string, len(headers))
		}
		maps.Copy(c.headers, headers)
	}
}

// WithHTTPClient sets the HTTP client of the HTTP transports. The client is
// not modified: a copy wraps its transport, to add the headers, bound what
// the server sends, and send nothing to another origin than the server's,
// whatever the client's CheckRedirect would allow.
func WithHTTPClient(client *http.Client) Option { return func(c *config) { c.httpClient = client } }

// WithToolFilter keeps, of the server's tools, those whose name the predicate
// accepts: it shapes what [Provider.Tools] offers a model and what the
// provider's handler serves. It does not limit [Provider.CallToolResult],
// which a host uses for its own calls.
func WithToolFilter(keep func(name string) bool) Option {
	return func(c *config) { c.toolFilter = keep }
}

// WithAllowedTools keeps only the named tools, like [WithToolFilter] with a
// list of names. An empty list is refused at Connect, since it would offer
// nothing; a name the server does not list is logged and otherwise ignored.
func WithAllowedTools(names ...string) Option {
	return func(c *config) { c.allowedTools = append([]string{}, names...) }
}

// WithEnv adds variables to the stdio server's environment, on top of the
// minimal one it always gets (on POSIX HOME, LOGNAME, PATH, SHELL, TERM and
// USER). Nothing else of this process's environment reaches the server.
func WithEnv(env map[string]string) Option {
	return func(c *config) {
		if c.env == nil {
			c.env = make(map[string]string, len(env))
		}
		maps.Copy(c.env, env)
	}
}

// WithDir sets the stdio server's working directory.
func WithDir(dir string) Option { return func(c *config) { c.dir = dir } }

// WithStderr sends the stdio server's stderr to w, from a goroutine; nil,
// the default, discards it, as exec.Cmd does. Either way its last lines are
// kept: an error caused by the server's failure (it exited, say) quotes
// them, cut and cleaned of escapes.
func WithStderr(w io.Writer) Option { return func(c *config) { c.stderr = w } }

// WithoutDiscovery connects without listing the server's tools. Then
// [Provider.Tools] and [Provider.ToolMeta] are empty, [Provider.Handler] serves
// no name, and no result is checked against an output schema;
// [Provider.CallToolResult], [Provider.ReadResource] and
// [Provider.Request] still work. For a host that only reads resources.
func WithoutDiscovery() Option { return func(c *config) { c.noDiscovery = true } }

// WithConnectTimeout bounds Connect (zero: [DefaultConnectTimeout]); a
// negative d means no bound but the caller's context.
func WithConnectTimeout(d time.Duration) Option { return func(c *config) { c.connect = d } }

// WithRequestTimeout bounds each request whose context has no earlier
// deadline (zero: [DefaultRequestTimeout]); a negative d means no bound but
// the caller's context.
func WithRequestTimeout(d time.Duration) Option { return func(c *config) { c.request = d } }

// WithMaxPages bounds how many pages of a listing the provider follows:
// the tools' at discovery, and [Provider.Resources], [Provider.ResourceTemplates]
// and [Provider.Prompts] (zero: [DefaultMaxPages]). A negative n is refused at Connect: a server
// could make its listing endless.
func WithMaxPages(n int) Option { return func(c *config) { c.pages = n } }

// The defaults of [WithMaxListing]: far beyond the tools any model can be
// given, and a resource listing a client would page through rather than
// hold, yet kept in tens of MiB.
const (
	defaultMaxListed      = 10_000
	defaultMaxListedBytes = 16 << 20
)

// WithMaxListing bounds one listing in all, across its pages: the tools'
// at discovery, and [Provider.Resources], [Provider.ResourceTemplates] and
// [Provider.Prompts]. It keeps at most items entries, and bytes bytes of
// them as they encode (zero: 10 000 entries and 16 MiB); each page is
// already bounded by [WithMaxMessageSize] and their number by
// [WithMaxPages], but a hundred legal pages of small entries would hold
// the host's memory in gigabytes. A page that takes the listing past
// either bound fails it with a [ProtocolError] naming the server and the
// bound, before anything of that page is kept. A negative value is
// refused at Connect.
func WithMaxListing(items, bytes int) Option {
	return func(c *config) { c.listed, c.listedBytes = items, bytes }
}

// WithMaxDescription sets how many characters of a tool description are kept
// (zero: [DefaultMaxDescription]). A negative n is refused at Connect: a
// server could fill every prompt that carries its tools.
func WithMaxDescription(n int) Option { return func(c *config) { c.description = n } }

// WithMaxMessageSize sets the largest message, in bytes, the server may send
// (zero: [DefaultMaxMessageSize]), whatever carries it: a line from a
// stdio server, a JSON body or a server-sent event over HTTP (every byte of
// its lines counts). The client never holds much more than this of one
// message. A larger message is read on without being kept, and the request
// it answers fails with an error naming the server and the limit; a larger
// notification or request from the server is dropped; the connection goes
// on. A negative n is refused at Connect: the limit is what keeps a server
// from exhausting the host's memory.
func WithMaxMessageSize(n int) Option { return func(c *config) { c.messageSize = n } }

// WithLogger sets the logger. Nothing a server sends is logged above debug
// level, and no header value, environment value or command argument is
// logged at all. Nil, the default, is slog.Default() told only warnings and
// errors (a lost connection, a stdio server not reading its stdin).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithCallTimeout bounds each tool call (zero: the request timeout). The
// bound restarts whenever the server reports progress on the call, or a
// change of status of the task the server runs it as, so a long call that
// keeps reporting is not cut off; when it passes, the call is cancelled on
// the wire (notifications/cancelled, or tasks/cancel for a task) and fails
// with a [TransportError] whose Timeout is set, naming server and tool. A
// negative d means no bound but the caller's context.
func WithCallTimeout(d time.Duration) Option { return func(c *config) { c.call = d } }

// WithReconnect makes the provider rebuild a lost connection as r says,
// listing the tools again. Meanwhile calls fail with a retryable
// [TransportError] saying the connection is being rebuilt; a call in flight
// when the connection was lost is sent again on the new connection only if
// the tool is annotated read-only or idempotent, and otherwise fails with
// OutcomeUnknown set. A provider made by [FromTransport] cannot reconnect.
// Zero fields of r are defaults.
func WithReconnect(r Reconnect) Option { return func(c *config) { c.reconnect = &r } }

// WithStateChange calls fn at every change of the provider's [State], with
// the error for a failed or lost connection. Calls are never concurrent and
// come in the order of the changes; fn must not block for long. fn is called
// before the change is visible through [Provider.State] and to calls waiting
// for a rebuilt connection, so once a call on the new connection returns, fn
// has seen the state it was made in. Each WithStateChange adds fn to those
// before it, so that the catalog's own and its host's both hear.
func WithStateChange(fn func(State, error)) Option {
	return func(c *config) {
		if prev := c.onState; prev != nil && fn != nil {
			c.onState = func(s State, err error) { prev(s, err); fn(s, err) }
		} else if fn != nil {
			c.onState = fn
		}
	}
}

// WithToolsChanged calls fn after the tools the provider offers changed: the
// server sent list_changed, the listing's ttl passed, or a rebuilt connection
// listed different tools. Calls are never concurrent with each other or with
// the state callback. Each WithToolsChanged adds fn to those before it.
func WithToolsChanged(fn func()) Option {
	return func(c *config) {
		if prev := c.onToolsChanged; prev != nil && fn != nil {
			c.onToolsChanged = func() { prev(); fn() }
		} else if fn != nil {
			c.onToolsChanged = fn
		}
	}
}

// WithOAuth authorizes the streamable HTTP transport's requests with h: on a
// 401 or 403 the handler runs its flow (discovery, then its grant) and the
// request is retried with the token. Package
// [github.com/mcpbridge/mcpbridge/mcptool/oauth] has handlers for the
// authorization-code flow, client credentials (secret or private-key JWT),
// JWT-bearer grants and enterprise-managed authorization; one with a DPoP
// key has the proofs added to every request to the server. The legacy SSE
// transport cannot be authorized this way (go-sdk's has no OAuth hook):
// Connect refuses it.
func WithOAuth(h auth.OAuthHandler) Option { return func(c *config) { c.oauth = h } }
