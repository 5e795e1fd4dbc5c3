package catalog

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CallResult runs a call as [Snapshot.Call] does, the name resolved and the
// arguments checked against the tool's own schema before anything is sent,
// but returns the server's result as it is ([mcpclient.Provider.CallToolResult]),
// isError included, for a host that relays it to an MCP client rather than
// to a model: package gateway.
func (s *Snapshot) CallResult(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	e, args, err := s.prepare(ctx, name, args)
	if err != nil {
		return nil, err
	}
	return e.server.p.CallToolResult(ctx, e.tool, args)
}

// Changed returns a channel that is closed when the catalog next takes in a
// re-listing (a server's list_changed, an expired listing, a
// reconnection): a host that serves the catalog takes a new [Snapshot]
// then. The re-listing may change nothing the snapshot shows.
func (t *Toolset) Changed() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.gen
}
