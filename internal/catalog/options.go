package catalog

import (
	"log/slog"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/schema"
	"github.com/mcpbridge/mcpbridge/tool"
	"github.com/mcpbridge/mcpbridge/toolset/config"
)

// An Option configures [Start]: what to do with the servers a [config.Config]
// describes, as opposed to the servers themselves.
type Option func(*options)

type options struct {
	vendor        schema.Vendor
	logger        *slog.Logger
	onStatus      func(ServerStatus)
	onToolChanged func(server string, old, new tool.Definition) bool
	public        func(config.Server) *mcptool.Options
	server        []func(config.Server) []mcpclient.Option

	tracerProvider trace.TracerProvider // telemetry.go
	meterProvider  metric.MeterProvider
}

// WithVendor sets the model vendor whose rules the catalog follows: tool
// names are made valid for it (a toolschema.Namer) and input schemas lowered
// for it ([schema.Lower]), a tool whose schema cannot be lowered being held
// out ([Toolset.Quarantined]).
//
// The default, and the meaning of "", is [schema.Anthropic]. Its rules are the loosest (names of up
// to 128 characters, any JSON Schema as it is), so the default changes
// nothing a server declares beyond what no vendor accepts; a host talking
// to OpenAI, Gemini or an OpenAI-compatible server must say so, or a tool
// name longer than 64 characters or a schema Gemini refuses fails its
// requests.
func WithVendor(v schema.Vendor) Option { return func(o *options) { o.vendor = v } }

// WithLogger sets the logger of the set and of every provider it starts.
// Nil, the default, is slog.Default() told only warnings and errors (a
// server left out, a tool quarantined), as they happen.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// OnStatus sets a function called whenever a server's status changes: its
// state (connecting, ready, failed and so on), its last error, or the number
// of tools it contributes. It is called from the goroutine that made the
// change, several servers' changes possibly at once, during [Start] too, so
// a command-line tool can show progress. It must not block, nor call back
// into the [Toolset] under construction.
func OnStatus(fn func(ServerStatus)) Option { return func(o *options) { o.onStatus = fn } }

// OnToolChanged sets a function called when a re-listing (a server's
// list_changed notification, an expired listing, a reconnection) shows a
// tool whose name, title, description, schemas or annotations differ from
// those pinned when it was first seen; old is the pinned definition and new
// the listed one, both as the server declares them (the server's tool name,
// the unlowered schemas).
//
// While the function runs, the tool is out of the catalog. Returning true
// pins the new definition and lets it back in; returning false refuses it:
// the tool stays out, and [Toolset.Quarantined] says so, until the server lists it
// again as it was pinned (it then comes back without a call) or changed
// once more (the function is asked again), or the host calls
// [Toolset.Accept].
//
// Without this option every change is accepted, and logged at warn level
// naming the server and the tool (never the description, which is the
// server's text). The function runs on the set's own goroutine, or in
// [Toolset.Snapshot] when that finds a listing stale; it may block, to ask a
// user, but [Toolset.Close] waits for it.
func OnToolChanged(fn func(server string, old, new tool.Definition) bool) Option {
	return func(o *options) { o.onToolChanged = fn }
}

// WithServer gives each server's provider the host's [mcptool.Options]
// for its config (toolset.Options.Server): a field set there wins over the
// config's same setting (timeouts, tools, roots), a zero one leaves it. fn
// is called once for each enabled server, by [Start].
func WithServer(fn func(config.Server) *mcptool.Options) Option {
	return func(o *options) { o.public = fn }
}

// WithServerOptions adds to each server's provider the options fn returns
// for its config, after those its config and [WithServer] make (so they
// win): what only mcpbridge's own code says, such as the gateway's notices
// and its host's side. fn is called once for each enabled server, by
// [Start]. Each WithServerOptions adds to those before it.
func WithServerOptions(fn func(config.Server) []mcpclient.Option) Option {
	return func(o *options) { o.server = append(o.server, fn) }
}
