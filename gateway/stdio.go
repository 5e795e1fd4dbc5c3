package gateway

import (
	"context"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/redact"
	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
)

// Run serves one client over t until the client goes away or ctx ends: for
// stdio, &mcp.StdioTransport{}, so that a desktop host runs the gateway as
// its only MCP server. The client is served the catalog, or with
// Options.Disclosure find_tools and call_tool.
func (g *Gateway) Run(ctx context.Context, t mcp.Transport) error {
	s := g.full
	if g.o.disclosure {
		s = g.small
	}
	return s.Run(ctx, t)
}

// sdkLog is the logger go-sdk's handlers get: go-sdk logs what a client
// sent, so its records go down to debug level.
func (g *Gateway) sdkLog() *slog.Logger {
	return slog.New(sdkfix.DebugOnly(g.log.Handler(), redact.Secrets{}))
}
