package mcptool

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/tool"
)

// A Provider is one MCP server's tools for an agent. Make one with
// [FromCommand], [FromURL], [FromServer] or [FromTransport], call
// [Provider.Connect], and hand it to an agent as a [tool.Source], or take
// its [Provider.Tools] and [Provider.Handler]. Its methods are safe for
// concurrent use; [Provider.Close] stops the server and everything the
// provider started.
type Provider mcpclient.Provider

func (p *Provider) core() *mcpclient.Provider { return (*mcpclient.Provider)(p) }

// FromCommand is a server started as a subprocess, over stdio. Nothing
// starts before [Provider.Connect].
func FromCommand(c Command, o *Options) *Provider {
	return (*Provider)(mcpclient.NewCommand(c, o))
}

// FromURL is a server reached over HTTP: streamable HTTP, or the SSE
// transport of the 2024-11-05 revision.
func FromURL(h HTTP, o *Options) *Provider { return (*Provider)(mcpclient.NewHTTP(h, o)) }

// FromServer is a go-sdk server run in this process, connected in memory:
// for tests, and for a host that serves tools of its own over MCP. o.Name
// names it (default "mcp").
func FromServer(s *mcp.Server, o *Options) *Provider {
	return (*Provider)(mcpclient.FromServer(nameOf(o), s, o.List()...))
}

// FromTransport is a server reached over a go-sdk transport of the caller's.
func FromTransport(t mcp.Transport, o *Options) *Provider {
	return (*Provider)(mcpclient.FromTransport(nameOf(o), t, o.List()...))
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
func (p *Provider) Name() string { return p.core().Name() }

// Connect starts or reaches the server, makes the handshake and lists its
// tools, within Limits.Connect. A failed Connect leaves nothing running.
func (p *Provider) Connect(ctx context.Context) error { return p.core().Connect(ctx) }

// Close ends the session and stops the server and every process it
// started. It is safe to call more than once.
func (p *Provider) Close() error { return p.core().Close() }

// State says where the connection stands, and why when it failed.
func (p *Provider) State() (State, error) { return p.core().State() }

// Tools returns the definitions of the server's tools a model may call,
// with their input schemas as the server wrote them.
func (p *Provider) Tools() []tool.Definition { return p.core().Tools() }

// Offer returns the tools as a [tool.Set], with the server's instructions,
// skills and resources: a Provider is a [tool.Source].
func (p *Provider) Offer(ctx context.Context) (tool.Set, error) { return p.core().Offer(ctx) }

// Handler runs a model's calls of the tools: it checks the arguments
// against the tool's schema before sending them, and converts the result
// into what a model can read ([ToReply]). It declines any other name with a
// [tool.UnservedError], so it composes with other handlers.
func (p *Provider) Handler() tool.Handler { return p.core().Handler() }

// CallTool calls the server's tool name with args (anything that encodes to
// a JSON object) and returns the result as the server sent it. A result
// marked isError is a result, not an error. Its StructuredContent is the
// JSON the server wrote, a json.RawMessage.
func (p *Provider) CallTool(ctx context.Context, name string, args any) (*mcp.CallToolResult, error) {
	return p.core().CallToolResult(ctx, name, args)
}

// Resources lists the server's resources.
func (p *Provider) Resources(ctx context.Context) ([]*mcp.Resource, error) {
	return p.core().Resources(ctx)
}

// ReadResource reads the resource uri.
func (p *Provider) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	return p.core().ReadResource(ctx, uri)
}

// Prompts lists the server's prompts.
func (p *Provider) Prompts(ctx context.Context) ([]*mcp.Prompt, error) { return p.core().Prompts(ctx) }

// ReadApp reads the MCP App interface uri ([tool.App.ResourceURI]), checked,
// with the CSP and permissions its frame asks for.
func (p *Provider) ReadApp(ctx context.Context, uri string) (*AppResource, error) {
	return p.core().ReadApp(ctx, uri)
}

// Instructions returns what the server asked its clients to tell the model,
// as it sent them.
func (p *Provider) Instructions() string { return p.core().Instructions() }

// ServerInfo returns the server's name and version, as it gave them.
func (p *Provider) ServerInfo() mcp.Implementation { return p.core().ServerInfo() }

// SetRoots replaces the directories the server is told it may work in
// (Options.Roots), and tells the server when they changed. A provider made
// without Options.Roots declared no roots, and refuses.
func (p *Provider) SetRoots(dirs ...string) error {
	return p.core().SetRoots(mcpclient.RootsOf(dirs)...)
}
