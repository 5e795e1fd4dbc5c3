package mcpclient

import (
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/tool"
)

// The values of this file are package mcptool's options, said there; the
// functional options of this package are the core's, which toolset, gateway
// and the command line use besides.

// A Command is a server started over stdio.
type Command struct {
	// Path is the program; it is looked up in PATH when it holds no slash.
	Path string
	// Args are its arguments.
	Args []string
	// Env is added to the minimal environment the server is given (PATH,
	// HOME and the locale, never the host's secrets).
	Env map[string]string
	// Dir is its working directory; empty is the host's.
	Dir string
	// Stderr, when set, receives the server's standard error; the last
	// lines are kept for the error of a server that exits either way.
	Stderr io.Writer
}

// HTTP is a server reached over HTTP.
type HTTP struct {
	// URL is the MCP endpoint.
	URL string
	// Headers are sent with every request (an API key, say).
	Headers map[string]string
	// Client makes the requests; nil is a client of its own.
	Client *http.Client
	// OAuth authorizes the requests (package mcptool/oauth).
	OAuth auth.OAuthHandler
	// SSE chooses the transport of the 2024-11-05 revision, as a URL
	// whose path ends in /sse does; otherwise it is streamable HTTP.
	SSE bool
}

// Limits bound what a server may cost the host. Zero in a field is its
// default; a negative timeout is no bound; a negative size is refused,
// since the bounds protect the host from the server.
type Limits struct {
	// Connect bounds the start, the handshake and the first listing
	// (default 60s).
	Connect time.Duration
	// Request bounds each request but tool calls (default 30s).
	Request time.Duration
	// Call bounds each tool call (default: Request).
	Call time.Duration
	// MessageSize bounds one message from the server (default 16 MiB).
	MessageSize int
	// Pages bounds the pages of one listing (default 100).
	Pages int
	// ListedItems and ListedBytes bound one listing in all (defaults
	// 10,000 items, 32 MiB).
	ListedItems, ListedBytes int
	// Description cuts each tool's description to this many bytes, at a
	// sentence or a word (default 2048).
	Description int
}

// An Event is a change a provider reports: its state, or its tools.
type Event struct {
	// State is the provider's state after the change; Err says why, for
	// StateFailed and StateReconnecting.
	State State
	Err   error
	// ToolsChanged reports that the server's tools were listed anew:
	// [Provider.Tools] has them.
	ToolsChanged bool
}

// Telemetry is where a provider's spans and measurements go: OpenTelemetry's
// global providers where nil. Content records each call's arguments and
// result on its span, cut and scrubbed.
type Telemetry struct {
	Tracer  trace.TracerProvider
	Meter   metric.MeterProvider
	Content bool
}

// Options are how a provider runs, whatever its transport. The zero value
// is the defaults.
type Options struct {
	// Name names the server in tool origins, errors and logs; the default
	// is the command's base name or the URL's host.
	Name string
	// Filter, when set, keeps only the tools it returns true for, by the
	// server's own name; the others are never offered nor called.
	Filter func(name string) bool
	// OnEvent is called, on a goroutine of the provider's, at each change
	// of state and each new listing of the tools.
	OnEvent func(Event)
	// Logger receives what the provider notices; nil is slog.Default().
	Logger    *slog.Logger
	Limits    Limits
	Telemetry Telemetry
	// Reconnect, when set, rebuilds a lost connection.
	Reconnect *Reconnect
	// Roots, when not nil, declares the roots capability with these
	// local directories. A filesystem server may replace the directories
	// it was given with them, so declare only what the server may reach.
	Roots []string
	// Elicitor answers a server's questions to the user; Sampling lets a
	// server ask the host's model. Nil declares neither.
	Elicitor tool.Elicitor
	Sampling *Sampling
	// Apps declares the MCP Apps extension, so that a server lists the
	// tools it keeps for hosts that render interfaces.
	Apps bool

	more []Option // Extend's
}

// Extend returns a copy of o (nil: the zero Options) whose List ends with
// opts: what no public field says (a stderr sink, the gateway's notices and
// host side), given by mcpbridge's own code through a public Options value
// (toolset.Options.Server).
func Extend(o *Options, opts ...Option) *Options {
	var c Options
	if o != nil {
		c = *o
	}
	c.more = slices.Concat(c.more, opts)
	return &c
}

// List is o as the core's functional options: only what o says, so that
// a zero field leaves in place what options before these set (a server's
// timeouts in its config, say), and the default where none did.
func (o *Options) List() []Option {
	if o == nil {
		return nil
	}
	var opts []Option
	add := func(said bool, opt Option) {
		if said {
			opts = append(opts, opt)
		}
	}
	l := o.Limits
	add(l.Connect != 0, WithConnectTimeout(l.Connect))
	add(l.Request != 0, WithRequestTimeout(l.Request))
	add(l.Call != 0, WithCallTimeout(l.Call))
	add(l.Pages != 0, WithMaxPages(l.Pages))
	add(l.ListedItems != 0 || l.ListedBytes != 0, WithMaxListing(l.ListedItems, l.ListedBytes))
	add(l.Description != 0, WithMaxDescription(l.Description))
	add(l.MessageSize != 0, WithMaxMessageSize(l.MessageSize))
	add(o.Telemetry.Tracer != nil, WithTracerProvider(o.Telemetry.Tracer))
	add(o.Telemetry.Meter != nil, WithMeterProvider(o.Telemetry.Meter))
	if o.Name != "" {
		opts = append(opts, WithName(o.Name))
	}
	if o.Filter != nil {
		opts = append(opts, WithToolFilter(o.Filter))
	}
	if fn := o.OnEvent; fn != nil {
		opts = append(opts, WithStateChange(func(s State, err error) { fn(Event{State: s, Err: err}) }),
			WithToolsChanged(func() { fn(Event{State: StateReady, ToolsChanged: true}) }))
	}
	if o.Logger != nil {
		opts = append(opts, WithLogger(o.Logger))
	}
	if o.Telemetry.Content {
		opts = append(opts, WithCallContent())
	}
	if o.Reconnect != nil {
		opts = append(opts, WithReconnect(*o.Reconnect))
	}
	if o.Roots != nil {
		opts = append(opts, WithRoots(RootsOf(o.Roots)...))
	}
	if o.Elicitor != nil {
		opts = append(opts, WithElicitation(o.Elicitor))
	}
	if o.Sampling != nil {
		opts = append(opts, WithSampling(*o.Sampling))
	}
	if o.Apps {
		opts = append(opts, WithApps())
	}
	return append(opts, o.more...)
}

// NewCommand is [FromCommand] of c with o.
func NewCommand(c Command, o *Options) *Provider {
	return FromCommand(c.Path, c.Args, append(o.List(), WithEnv(c.Env), WithDir(c.Dir), WithStderr(c.Stderr))...)
}

// NewHTTP is [FromURL] of h with o.
func NewHTTP(h HTTP, o *Options) *Provider {
	opts := append(o.List(), WithHeaders(h.Headers))
	if h.Client != nil {
		opts = append(opts, WithHTTPClient(h.Client))
	}
	if h.OAuth != nil {
		opts = append(opts, WithOAuth(h.OAuth))
	}
	if h.SSE {
		opts = append(opts, WithTransport(SSE))
	}
	return FromURL(h.URL, opts...)
}

// RootsOf is the roots of local directories: each its absolute file://
// URI, named by its last element.
func RootsOf(dirs []string) []Root {
	roots := make([]Root, 0, len(dirs))
	for _, d := range dirs {
		r, err := RootOf(d)
		if err != nil { // no working directory: the path as given, refused at Connect unless absolute
			r = Root{URI: "file://" + filepath.ToSlash(d), Name: filepath.Base(d)}
		}
		roots = append(roots, r)
	}
	return roots
}
