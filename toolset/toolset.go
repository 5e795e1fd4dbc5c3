package toolset

import (
	"context"
	"log/slog"

	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/schema"
	"github.com/mcpbridge/mcpbridge/tool"
)

// A Toolset is many MCP servers as one set of tools: a [tool.Source] whose
// Offer is the catalog as it stands, taken once a turn.
type Toolset catalog.Toolset

func (t *Toolset) core() *catalog.Toolset { return (*catalog.Toolset)(t) }

// Options are how a toolset runs its servers; nil or the zero value is the
// defaults.
type Options struct {
	// Vendor is the model vendor the tools are named and lowered for
	// (default Anthropic, whose rules are the loosest: a host talking to
	// OpenAI, Gemini or an OpenAI-compatible server must say so, or a
	// longer name or a schema Gemini refuses fails its requests).
	Vendor schema.Vendor
	// Logger receives what the set notices: a server left out, a tool
	// quarantined or changed; nil is slog.Default().
	Logger *slog.Logger
	// OnStatus is called at each change of a server's state, during Start
	// too.
	OnStatus func(ServerStatus)
	// OnToolChanged is asked when a tool's definition changes after it was
	// first seen (pinned by hash); false keeps the tool out of the set.
	// Nil accepts every change, and logs it.
	OnToolChanged func(server string, old, new tool.Definition) bool
	// Telemetry is where every server's spans and measurements go.
	Telemetry mcptool.Telemetry
	// Server, when set, gives each server's provider options beyond its
	// config (an elicitor, sampling, a reconnect policy...): a field set
	// here wins over the config's same setting (timeouts, tools, roots),
	// a zero one leaves it.
	Server func(ServerConfig) *mcptool.Options
}

func (o *Options) list() []catalog.Option {
	if o == nil {
		return nil
	}
	opts := []catalog.Option{catalog.WithLogger(o.Logger), catalog.WithTracerProvider(o.Telemetry.Tracer),
		catalog.WithMeterProvider(o.Telemetry.Meter)}
	if o.Vendor != "" {
		opts = append(opts, catalog.WithVendor(o.Vendor))
	}
	if o.OnStatus != nil {
		opts = append(opts, catalog.OnStatus(o.OnStatus))
	}
	if o.OnToolChanged != nil {
		opts = append(opts, catalog.OnToolChanged(o.OnToolChanged))
	}
	if server, content := o.Server, o.Telemetry.Content; server != nil || content {
		opts = append(opts, catalog.WithServerOptions(func(s ServerConfig) []mcpclient.Option {
			var l []mcpclient.Option
			if server != nil {
				l = server(s).List()
			}
			if content {
				l = append(l, mcpclient.WithCallContent())
			}
			return l
		}))
	}
	return opts
}

// Start connects every enabled server of cfg at once, each within its own
// timeout, and returns the set. A server that fails is logged and left out,
// unless it is required: then nothing is left running and Start fails with
// a [StartError]. A config that does not validate fails with an
// [InvalidConfigError] naming every problem.
func Start(ctx context.Context, cfg *Config, o *Options) (*Toolset, error) {
	t, err := catalog.Start(ctx, cfg, o.list()...)
	return (*Toolset)(t), err
}

// Offer returns the catalog as it stands: a snapshot whose definitions and
// handler do not change during the turn, whatever the servers re-list
// meanwhile, with each server's instructions, skills and resources.
func (t *Toolset) Offer(ctx context.Context) (tool.Set, error) { return t.core().Offer(ctx) }

// Status says where each server stands, in the config's order.
func (t *Toolset) Status() []ServerStatus { return t.core().Status() }

// Quarantined lists the tools held out of the catalog, and why.
func (t *Toolset) Quarantined() []Quarantine { return t.core().Quarantined() }

// Provider returns the provider of the server name, for what the catalog
// does not do (its resources, its prompts), and whether it runs.
func (t *Toolset) Provider(name string) (*mcptool.Provider, bool) {
	p, ok := t.core().Provider(name)
	return (*mcptool.Provider)(p), ok
}

// Close stops every server and everything they started.
func (t *Toolset) Close() error { return t.core().Close() }
