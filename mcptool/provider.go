package mcptool

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/handle"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/tool"
)

// A Provider is one MCP server's tools for an agent. Make one with
// [FromCommand], [FromURL], [FromServer] or [FromTransport], call
// [Provider.Connect], and hand it to an agent as a [tool.Source], or take
// its [Provider.Tools] and [Provider.Handler]. Its methods are safe for
// concurrent use; [Provider.Close] stops the server and everything the
// provider started.
type Provider struct{ core }

// core is the client core a Provider wraps (package internal/handle says
// why it is embedded).
type core = handle.Of[mcpclient.Provider]

// c returns the client core of p.
func (p *Provider) c() *mcpclient.Provider { return handle.Core[mcpclient.Provider](p) }

// FromCommand is a server started as a subprocess, over stdio. Nothing
// starts before [Provider.Connect].
func FromCommand(c Command, o *Options) *Provider {
	opts := o.list()
	if len(c.Env) > 0 {
		opts = append(opts, mcpclient.WithEnv(c.Env))
	}
	if c.Dir != "" {
		opts = append(opts, mcpclient.WithDir(c.Dir))
	}
	return handle.Wrap[Provider](mcpclient.FromCommand(c.Path, c.Args, opts...))
}

// FromURL is a server reached over HTTP: streamable HTTP, or the SSE
// transport of the 2024-11-05 revision.
func FromURL(h HTTP, o *Options) *Provider {
	opts := o.list()
	if len(h.Headers) > 0 {
		opts = append(opts, mcpclient.WithHeaders(h.Headers))
	}
	if h.Client != nil {
		opts = append(opts, mcpclient.WithHTTPClient(h.Client))
	}
	if h.OAuth != nil {
		opts = append(opts, mcpclient.WithOAuth(h.OAuth))
	}
	if h.SSE {
		opts = append(opts, mcpclient.WithTransport(mcpclient.SSE))
	}
	return handle.Wrap[Provider](mcpclient.FromURL(h.URL, opts...))
}

// FromServer is a go-sdk server run in this process, connected in memory:
// for tests, and for a host that serves tools of its own over MCP. o.Name
// names it (default "mcp").
func FromServer(s *mcp.Server, o *Options) *Provider {
	return handle.Wrap[Provider](mcpclient.FromServer(nameOf(o), s, o.list()...))
}

// FromTransport is a server reached over a go-sdk transport of the caller's.
func FromTransport(t mcp.Transport, o *Options) *Provider {
	return handle.Wrap[Provider](mcpclient.FromTransport(nameOf(o), t, o.list()...))
}

// nameOf is the name of a server known by no command or URL: o.Name, else
// "mcp" (the name it gives in the handshake comes too late to name it).
func nameOf(o *Options) string {
	if o != nil && o.Name != "" {
		return o.Name
	}
	return "mcp"
}

// Name names the server: Options.Name, or what the constructor derived.
func (p *Provider) Name() string { return p.c().Name() }

// Connect starts or reaches the server, makes the handshake and lists its
// tools, within Limits.Connect. A failed Connect leaves nothing running.
func (p *Provider) Connect(ctx context.Context) error { return p.c().Connect(ctx) }

// Close ends the session and stops the server and every process it
// started. It is safe to call more than once.
func (p *Provider) Close() error { return p.c().Close() }

// State says where the connection stands, and why when it failed.
func (p *Provider) State() (State, error) {
	s, err := p.c().State()
	return State(s), err
}

// Tools returns the definitions of the server's tools a model may call,
// with their input schemas as the server wrote them.
func (p *Provider) Tools() []tool.Definition { return p.c().Tools() }

// Offer returns the tools as a [tool.Set], with the server's instructions,
// skills and resources: a Provider is a [tool.Source].
func (p *Provider) Offer(ctx context.Context) (tool.Set, error) { return p.c().Offer(ctx) }

// Handler runs a model's calls of the tools: it checks the arguments
// against the tool's schema before sending them, and converts the result
// into what a model can read ([ToReply]). It declines any other name with a
// [tool.UnservedError], so it composes with other handlers.
func (p *Provider) Handler() tool.Handler { return p.c().Handler() }

// CallTool calls the server's tool name with args (anything that encodes to
// a JSON object) and returns the result as the server sent it. A result
// marked isError is a result, not an error. Its StructuredContent is the
// JSON the server wrote, a json.RawMessage.
func (p *Provider) CallTool(ctx context.Context, name string, args any) (*mcp.CallToolResult, error) {
	return p.c().CallToolResult(ctx, name, args)
}

// Resources lists the server's resources.
func (p *Provider) Resources(ctx context.Context) ([]*mcp.Resource, error) {
	return p.c().Resources(ctx)
}

// ReadResource reads the resource uri.
func (p *Provider) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	return p.c().ReadResource(ctx, uri)
}

// Prompts lists the server's prompts.
func (p *Provider) Prompts(ctx context.Context) ([]*mcp.Prompt, error) { return p.c().Prompts(ctx) }

// ReadApp reads the MCP App interface uri ([tool.App.ResourceURI]), checked,
// with the CSP and permissions its frame asks for.
func (p *Provider) ReadApp(ctx context.Context, uri string) (*AppResource, error) {
	a, err := p.c().ReadApp(ctx, uri)
	return appResource(a), err
}

// Instructions returns what the server asked its clients to tell the model,
// as it sent them.
func (p *Provider) Instructions() string { return p.c().Instructions() }

// ServerInfo returns the server's name and version, as it gave them.
func (p *Provider) ServerInfo() mcp.Implementation { return p.c().ServerInfo() }

// SetRoots replaces the directories the server is told it may work in
// (Options.Roots), and tells the server when they changed. A provider made
// without Options.Roots declared no roots, and refuses.
func (p *Provider) SetRoots(dirs ...string) error {
	return p.c().SetRoots(mcpclient.RootsOf(dirs)...)
}
