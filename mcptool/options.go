package mcptool

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/tool"
)

// A Command is a server started as a subprocess, speaking MCP over stdio.
// It runs directly (no shell), in a process group of its own that Close
// stops whole.
type Command struct {
	// Path is the program; it is looked up in PATH when it holds no slash.
	Path string
	// Args are its arguments. They are never logged nor quoted in an
	// error: they may carry a secret.
	Args []string
	// Env is added to the minimal environment the server is given: on
	// POSIX HOME, LOGNAME, PATH, SHELL, TERM and USER, and nothing else of
	// this process's environment, the locale included.
	Env map[string]string
	// Dir is its working directory; empty is this process's.
	Dir string
}

// HTTP is a server reached over HTTP: streamable HTTP, or the SSE
// transport of protocol revision 2024-11-05.
type HTTP struct {
	// URL is the MCP endpoint.
	URL string
	// Headers are sent with every request (an API key, say), and only to
	// the URL's origin: a redirect elsewhere is refused. Their values are
	// never logged.
	Headers map[string]string
	// Client makes the requests; nil is a client of the provider's own. It
	// is not modified: a copy wraps its transport.
	Client *http.Client
	// OAuth authorizes the requests: on a 401 or 403 it runs its flow and
	// the request is sent again with the token. Package mcptool/oauth has
	// the handlers. The SSE transport cannot be authorized so: Connect
	// refuses it.
	OAuth auth.OAuthHandler
	// SSE chooses the transport of the 2024-11-05 revision, as a URL whose
	// path ends in /sse does; otherwise it is streamable HTTP.
	SSE bool
}

// Limits bound what a server may cost the host. Zero in a field is its
// default; a negative timeout is no bound but the caller's context; a
// negative size is refused at Connect with a [ConfigError], since these
// bounds protect the host from the server.
type Limits struct {
	// Connect bounds Connect: the start, the handshake and the first
	// listing of the tools (default 60s).
	Connect time.Duration
	// Request bounds each request but tool calls (default 30s).
	Request time.Duration
	// Call bounds each tool call (default: Request). It restarts whenever
	// the server reports progress on the call; when it passes, the call is
	// cancelled on the wire and fails with a [TransportError] whose
	// Timeout is set.
	Call time.Duration
	// MessageSize bounds one message from the server, whatever carries it
	// (default 16 MiB). A larger answer fails its request; the connection
	// goes on.
	MessageSize int
	// Pages bounds the pages of one listing (default 100).
	Pages int
	// ListedItems bounds the entries of one listing across its pages
	// (default 10,000).
	ListedItems int
	// ListedBytes bounds the bytes of one listing's entries across its
	// pages (default 16 MiB).
	ListedBytes int
	// Description cuts each tool's description to this many characters,
	// at a sentence or a word (default 2048).
	Description int
}

// An Event is a change a provider reports to [Options].OnEvent: its
// state, or its tools.
type Event struct {
	// State is the provider's state after the change.
	State State
	// Err says why, for StateFailed and StateReconnecting.
	Err error
	// ToolsChanged reports that the server's tools were listed anew:
	// [Provider.Tools] has them.
	ToolsChanged bool
}

// Telemetry is where a provider's spans and measurements go, by the
// OpenTelemetry conventions for MCP.
type Telemetry struct {
	// Tracer makes the spans, one a request; nil is OpenTelemetry's
	// global provider.
	Tracer trace.TracerProvider
	// Meter makes the measurements; nil is OpenTelemetry's global
	// provider.
	Meter metric.MeterProvider
	// Content records each call's arguments and result on its span, cut
	// and scrubbed of secrets.
	Content bool
}

// Reconnect is how a provider rebuilds a lost connection: a stdio server
// that exited is started again, an HTTP session the server forgot or
// whose stream broke is opened anew, and the tools are listed again. A
// call caught by the loss is sent again only for a tool annotated
// read-only or idempotent. A provider made by [FromTransport] connects
// once and cannot reconnect.
type Reconnect struct {
	// MaxAttempts bounds the attempts for one loss (default 5); a
	// negative one is no bound, attempts going on until Close.
	MaxAttempts int
	// MinDelay is the wait before the first attempt (default 200ms); the
	// delay doubles from there. A negative delay is refused at Connect.
	MinDelay time.Duration
	// MaxDelay caps the wait between attempts (default 10s, or MinDelay if
	// that is longer). A server that asks for a wait (an HTTP Retry-After)
	// gets at least that, never more than MaxDelay.
	MaxDelay time.Duration
}

// Sampling lets a server ask the host's model for completions
// (sampling/createMessage), and declares the capability so that it may.
type Sampling struct {
	// Model answers. Required.
	Model llm.Model
	// Approve, if set, is asked before each request reaches the model,
	// with the request as the server made it: the human in the loop the
	// specification asks for. An error refuses the request: the server
	// gets the error -1 (rejected) with its text.
	Approve func(ctx context.Context, req *SamplingRequest) error
	// CheckTool, if set, judges each tool call of the model's answer
	// before the answer goes back to the server (which runs the tool), as
	// a host judges its own calls: policy.Policy's Check fits. Before it,
	// every call must name a tool of the request and have arguments that
	// fit the tool's input schema. A refusal fails the request with -1.
	CheckTool func(ctx context.Context, name string, args json.RawMessage) error
	// MaxTokens caps the tokens of one answer (default 4096): a request
	// asking for more gets this many. A negative cap is refused at
	// Connect: it bounds what a server spends of the host's model.
	MaxTokens int
	// MaxRequests bounds the sampling requests a server makes during one
	// tool call (default 10); past it they are refused with -1. A negative
	// bound is refused at Connect.
	MaxRequests int
}

// A SamplingRequest is what a server asked the host's model, as
// [Sampling].Approve sees it.
type SamplingRequest struct {
	// Server is the server that asks.
	Server string
	// Tool is the tool whose call the request came during, when that is
	// sure; empty otherwise.
	Tool string
	// System is the server's system prompt, sent as this request's own.
	System string
	// Messages are the conversation the server sends.
	Messages []llm.Message
	// Tools are the tools the server offers the model.
	Tools []tool.Definition
	// ToolChoice is "auto", "required" or "none".
	ToolChoice string
	// MaxTokens is what the server asked for; the model is asked for at
	// most [Sampling].MaxTokens.
	MaxTokens int
	// Temperature is the server's, if it gave one.
	Temperature *float64
	// ModelHints name the models the server would like, advisory.
	ModelHints []string
	// CostPriority, SpeedPriority and IntelligencePriority (0 to 1) are
	// the server's preferences, advisory.
	CostPriority, SpeedPriority, IntelligencePriority float64
}

// Options are how a provider runs, whatever its transport. Nil or the zero
// value is the defaults; each field says its own.
type Options struct {
	// Name names the server in tool origins, errors and logs. The default
	// is what the command runs (npx -y @scope/server-memory is
	// "server-memory"), the URL's host, or "mcp".
	Name string
	// Filter, when set, keeps only the tools it returns true for, by the
	// server's own names: the others are neither offered nor served by
	// the handler. [Provider.CallTool] is not filtered.
	Filter func(name string) bool
	// OnEvent is called at each change of the provider's state and each
	// new listing of its tools, on a goroutine of the provider's, never
	// concurrently, in the order of the changes. It must not block long.
	OnEvent func(Event)
	// Logger receives what the provider notices; nil is slog.Default(),
	// told warnings and errors only. Nothing a server sends is logged
	// above debug level, and no header value, environment value or
	// argument at all.
	Logger *slog.Logger
	// Limits bound what the server may cost the host.
	Limits Limits
	// Telemetry is where spans and measurements go.
	Telemetry Telemetry
	// Reconnect, when set, rebuilds a lost connection; nil leaves a
	// provider failed once its connection is lost.
	Reconnect *Reconnect
	// Roots, when not nil, declares the roots capability with these local
	// directories (a relative one from the working directory). A
	// filesystem server may replace the directories it was started with by
	// them, so declare only what the server may reach.
	Roots []string
	// Elicitor answers a server's questions to the user
	// (elicitation/create), and declares the capability; nil declares
	// none. An elicitor a call's context carries (tool.WithElicitor)
	// answers first.
	Elicitor tool.Elicitor
	// Sampling lets the server ask the host's model; nil declares none.
	Sampling *Sampling
	// Apps declares the MCP Apps extension, so that a server lists the
	// tools it keeps for hosts that render interfaces ([Provider.ReadApp]).
	Apps bool
	// Stderr, when set, receives the standard error of a server started
	// by command, from a goroutine; nil discards it. Either way its last
	// lines are kept, and quoted by the error of a server that fails.
	Stderr io.Writer
}

// list is o as the core's options: only what o says, so that a zero
// field leaves in place what options before these set (a server's config,
// in a toolset), and the default where none did.
func (o *Options) list() []mcpclient.Option {
	if o == nil {
		return nil
	}
	var opts []mcpclient.Option
	add := func(said bool, opt mcpclient.Option) {
		if said {
			opts = append(opts, opt)
		}
	}
	l := o.Limits
	add(l.Connect != 0, mcpclient.WithConnectTimeout(l.Connect))
	add(l.Request != 0, mcpclient.WithRequestTimeout(l.Request))
	add(l.Call != 0, mcpclient.WithCallTimeout(l.Call))
	add(l.Pages != 0, mcpclient.WithMaxPages(l.Pages))
	add(l.ListedItems != 0 || l.ListedBytes != 0, mcpclient.WithMaxListing(l.ListedItems, l.ListedBytes))
	add(l.Description != 0, mcpclient.WithMaxDescription(l.Description))
	add(l.MessageSize != 0, mcpclient.WithMaxMessageSize(l.MessageSize))
	add(o.Telemetry.Tracer != nil, mcpclient.WithTracerProvider(o.Telemetry.Tracer))
	add(o.Telemetry.Meter != nil, mcpclient.WithMeterProvider(o.Telemetry.Meter))
	add(o.Telemetry.Content, mcpclient.WithCallContent())
	add(o.Name != "", mcpclient.WithName(o.Name))
	add(o.Filter != nil, mcpclient.WithToolFilter(o.Filter))
	add(o.Logger != nil, mcpclient.WithLogger(o.Logger))
	add(o.Roots != nil, mcpclient.WithRoots(mcpclient.RootsOf(o.Roots)...))
	add(o.Elicitor != nil, mcpclient.WithElicitation(o.Elicitor))
	add(o.Apps, mcpclient.WithApps())
	add(o.Stderr != nil, mcpclient.WithStderr(o.Stderr))
	if fn := o.OnEvent; fn != nil {
		opts = append(opts,
			mcpclient.WithStateChange(func(s mcpclient.State, err error) { fn(Event{State: State(s), Err: err}) }),
			mcpclient.WithToolsChanged(func() { fn(Event{State: StateReady, ToolsChanged: true}) }))
	}
	if r := o.Reconnect; r != nil {
		opts = append(opts, mcpclient.WithReconnect(mcpclient.Reconnect(*r)))
	}
	if s := o.Sampling; s != nil {
		core := mcpclient.Sampling{Model: s.Model, CheckTool: s.CheckTool, MaxTokens: s.MaxTokens, MaxRequests: s.MaxRequests}
		if approve := s.Approve; approve != nil {
			core.Approve = func(ctx context.Context, req *mcpclient.SamplingRequest) error {
				return approve(ctx, (*SamplingRequest)(req))
			}
		}
		opts = append(opts, mcpclient.WithSampling(core))
	}
	return opts
}

// State is where a provider's connection stands.
type State int

// The states of a provider's connection.
const (
	// StateIdle: not connected yet.
	StateIdle State = iota
	// StateConnecting: Connect is in progress.
	StateConnecting
	// StateReady: connected and serving.
	StateReady
	// StateReconnecting: the connection was lost and is being rebuilt
	// ([Options].Reconnect); calls fail meanwhile with a retryable
	// [TransportError] that says so.
	StateReconnecting
	// StateFailed: Connect failed, or the connection was lost and not
	// rebuilt. The error says why.
	StateFailed
	// StateClosed: Close was called.
	StateClosed
)

// String names the state as the logs and the command line do: "ready",
// "reconnecting"...
func (s State) String() string {
	if s < StateIdle || s > StateClosed {
		return fmt.Sprintf("State(%d)", int(s))
	}
	return mcpclient.State(s).String()
}

// An AppResource is a tool's MCP App interface ([Provider.ReadApp]), read
// and checked, with what its frame asks of the host.
type AppResource struct {
	// URI is the resource's ui:// URI.
	URI string
	// HTML is the document, as the server sent it.
	HTML string
	// CSP lists the origins the app asks to reach.
	CSP AppCSP
	// Permissions are the browser features the app asks for.
	Permissions AppPermissions
	// Domain is the dedicated sandbox origin the app asks for, in a format
	// each host defines; "" leaves the origin to the host.
	Domain string
	// PrefersBorder says whether the app wants the host to draw a border
	// and background around it; nil leaves that to the host.
	PrefersBorder *bool
}

// AppCSP is the origins an MCP App asks to reach (McpUiResourceCsp). An
// empty list asks for nothing: the default is to deny.
type AppCSP struct {
	// ConnectDomains may be fetched, or connected to (connect-src).
	ConnectDomains []string `json:"connectDomains,omitempty"`
	// ResourceDomains may serve scripts, styles, images, fonts and media.
	ResourceDomains []string `json:"resourceDomains,omitempty"`
	// FrameDomains may be framed by the app (frame-src).
	FrameDomains []string `json:"frameDomains,omitempty"`
	// BaseURIDomains may be the document's base URI (base-uri).
	BaseURIDomains []string `json:"baseUriDomains,omitempty"`
}

// Policy returns the Content-Security-Policy a host renders the app under:
// nothing by default ("default-src 'none'"), inline scripts and styles,
// data: images, fonts and media, and each kind of request only to the
// origins the app declared for it. A declared origin that is not
// scheme://host[:port][/path] over http(s) or ws(s) is left out, so no
// server text can add a directive or a keyword.
func (c AppCSP) Policy() string { return mcpclient.AppCSP(c).Policy() }

// AppPermissions are the browser features an MCP App asks for
// (McpUiResourcePermissions). A host may grant them through the frame's
// allow attribute; an app must not assume it does.
type AppPermissions struct {
	// Camera is the camera (Permission Policy "camera").
	Camera bool
	// Microphone is the microphone ("microphone").
	Microphone bool
	// Geolocation is the location ("geolocation").
	Geolocation bool
	// ClipboardWrite is writing to the clipboard ("clipboard-write").
	ClipboardWrite bool
}

// appResource is the core's app, as this package shows it.
func appResource(a *mcpclient.AppResource) *AppResource {
	if a == nil {
		return nil
	}
	return &AppResource{URI: a.URI, HTML: a.HTML, CSP: AppCSP(a.CSP), Permissions: AppPermissions(a.Permissions),
		Domain: a.Domain, PrefersBorder: a.PrefersBorder}
}
