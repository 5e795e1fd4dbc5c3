package catalog

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CallRaw runs a call as [Snapshot.CallResult] does, the name resolved and
// the arguments checked first, but returns the server's result as the
// server wrote it when its provider can make the call raw
// ([mcpclient.Provider.CallToolRaw]), for a relay that passes it on
// unchanged. Otherwise, and for what a raw call answers decoded (a task
// followed to its end, an input_required result), the result comes back
// decoded, as CallResult returns it, with a nil raw result.
func (s *Snapshot) CallRaw(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, *mcp.CallToolResult, error) {
	e, args, err := s.prepare(ctx, name, args)
	if err != nil {
		return nil, nil, err
	}
	return e.server.p.CallToolRaw(ctx, e.tool, args)
}
