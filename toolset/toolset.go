package toolset

import (
	"context"
	"log/slog"

	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/internal/handle"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/schema"
	"github.com/mcpbridge/mcpbridge/tool"
	"github.com/mcpbridge/mcpbridge/toolset/config"
)

// A Toolset is many MCP servers as one set of tools: a [tool.Source] whose
// Offer is the catalog as it stands, taken once a turn.
type Toolset struct{ core }

// core is the catalog a Toolset wraps (package internal/handle says why it
// is embedded).
type core = handle.Of[catalog.Toolset]

// c returns the catalog of t.
func (t *Toolset) c() *catalog.Toolset { return handle.Core[catalog.Toolset](t) }

// Options are how a toolset runs its servers; nil or the zero value is the
// defaults.
type Options struct {
	// Vendor is the model vendor the tools are named and lowered for
	// (default Anthropic, whose rules are the loosest: a host talking to
	// OpenAI, Gemini or an OpenAI-compatible server must say so, or a
	// longer name or a schema Gemini refuses fails its requests).
	Vendor schema.Vendor
	// Logger receives what the set notices: a server left out, a tool
	// quarantined or changed; nil is slog.Default(), told warnings and
	// errors only.
	Logger *slog.Logger
	// OnStatus is called at each change of a server's status, during Start
	// too, from the goroutine that made the change (several servers' at
	// once). It must not block, nor call back into the Toolset.
	OnStatus func(ServerStatus)
	// OnToolChanged is asked when a tool's definition changes after it was
	// first seen (pinned by hash); false keeps the tool out of the set.
	// Nil accepts every change, and logs it.
	OnToolChanged func(server string, old, new tool.Definition) bool
	// Telemetry is where every server's spans and measurements go.
	Telemetry mcptool.Telemetry
	// Server, when set, gives each server's provider options beyond its
	// config (an elicitor, sampling, a reconnect policy, its stderr...): a
	// field set here wins over the config's same setting (timeouts, tools,
	// roots), a zero one leaves it.
	Server func(config.Server) *mcptool.Options
}

// list is o as the catalog's options.
func (o *Options) list() []catalog.Option {
	if o == nil {
		return nil
	}
	opts := []catalog.Option{catalog.WithLogger(o.Logger), catalog.WithTracerProvider(o.Telemetry.Tracer),
		catalog.WithMeterProvider(o.Telemetry.Meter), catalog.WithServer(o.Server)}
	if o.Vendor != "" {
		opts = append(opts, catalog.WithVendor(o.Vendor))
	}
	if fn := o.OnStatus; fn != nil {
		opts = append(opts, catalog.OnStatus(func(s catalog.ServerStatus) { fn(ServerStatus(s)) }))
	}
	if o.OnToolChanged != nil {
		opts = append(opts, catalog.OnToolChanged(o.OnToolChanged))
	}
	if o.Telemetry.Content {
		opts = append(opts, catalog.WithServerOptions(func(config.Server) []mcpclient.Option {
			return []mcpclient.Option{mcpclient.WithCallContent()}
		}))
	}
	return opts
}

// A ServerStatus is where one server of a [Toolset] stands.
type ServerStatus struct {
	// Name is the server's name in the config.
	Name string
	// State is where its connection stands.
	State mcptool.State
	// Err is the last failure: why it failed to start, or why it is
	// reconnecting; nil otherwise.
	Err error
	// Tools is how many tools the server gives the catalog, those held out
	// (quarantined, refused, colliding) not counted.
	Tools int
}

// A Quarantine is a tool held out of the catalog, and why: its input
// schema cannot be lowered for the vendor (or no validation could finish
// on it), its output schema cannot be used, its name is another server's,
// or the host refused a change to it.
type Quarantine struct {
	// Server is the server's name in the config.
	Server string
	// Tool is the server's own name for the tool.
	Tool string
	// Pointer is a JSON pointer into the tool's input schema where the
	// problem lies, or into its output schema prefixed with /outputSchema;
	// "" when it concerns the whole tool.
	Pointer string
	// Message says what is wrong.
	Message string
}

// String formats q as server "s": tool "t": at /pointer: message.
func (q Quarantine) String() string { return catalog.Quarantine(q).String() }

// A StartError is a required server that failed to start: nothing is left
// running. Its Server names the server, its Err says why.
type StartError = catalog.StartError

// Start connects every enabled server of cfg at once, each within its own
// timeout, and returns the set. A server that fails is logged and left out,
// unless it is required: then nothing is left running and Start fails with
// a [*StartError]. A config that does not validate fails with a
// [*config.InvalidError] naming every problem.
func Start(ctx context.Context, cfg *config.Config, o *Options) (*Toolset, error) {
	t, err := catalog.Start(ctx, cfg, o.list()...)
	if err != nil {
		return nil, err
	}
	return handle.Wrap[Toolset](t), nil
}

// Offer returns the catalog as it stands: a snapshot whose definitions and
// handler do not change during the turn, whatever the servers re-list
// meanwhile, with each server's instructions, skills and resources.
func (t *Toolset) Offer(ctx context.Context) (tool.Set, error) { return t.c().Offer(ctx) }

// Status says where each server stands, in the config's order.
func (t *Toolset) Status() []ServerStatus {
	var out []ServerStatus
	for _, s := range t.c().Status() {
		out = append(out, ServerStatus(s))
	}
	return out
}

// Quarantined lists the tools held out of the catalog, and why.
func (t *Toolset) Quarantined() []Quarantine {
	var out []Quarantine
	for _, q := range t.c().Quarantined() {
		out = append(out, Quarantine(q))
	}
	return out
}

// Provider returns the provider of the server name, for what the catalog
// does not do (its resources, its prompts), and whether it runs.
func (t *Toolset) Provider(name string) (*mcptool.Provider, bool) { return t.c().Public(name) }

// Close stops every server and everything they started.
func (t *Toolset) Close() error { return t.c().Close() }
