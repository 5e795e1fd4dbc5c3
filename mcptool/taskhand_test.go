package mcptool_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/mcptool"
)

// A caller that follows tasks (a gateway's client that declared the
// extension) calls a tool the server answers at once: it gets the result,
// there being no task to hand it. This once dereferenced the missing task
// and crashed the gateway on the first such call.
func TestACallerFollowingTasksCallsAToolThatIsNoTask(t *testing.T) {
	srv := serveHTTP(t, demo.New(), &mcp.StreamableHTTPOptions{Stateless: true})
	p := connectURL(t, srv.URL)
	ctx := mcptool.WithCaller(context.Background(), mcptool.Caller{FollowsTasks: true})
	res, err := p.CallToolResult(ctx, "list_notes", nil)
	if err != nil || mcptool.ToText(res) != "no notes yet" {
		t.Fatalf("%q, %v", mcptool.ToText(res), err)
	}
}
