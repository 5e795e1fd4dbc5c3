package mcpclient_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
)

// A caller that follows tasks (a gateway's client that declared the
// extension) calls a tool the server answers at once: it gets the result,
// there being no task to hand it. This once dereferenced the missing task
// and crashed the gateway on the first such call.
func TestACallerFollowingTasksCallsAToolThatIsNoTask(t *testing.T) {
	srv := serveHTTP(t, demo.New(), &mcp.StreamableHTTPOptions{Stateless: true})
	p := connectURL(t, srv.URL)
	ctx := mcpclient.WithCaller(context.Background(), mcpclient.Caller{FollowsTasks: true})
	res, err := p.CallToolResult(ctx, "list_notes", nil)
	if err != nil || mcpclient.ToReply(res).Text() != "no notes yet" {
		t.Fatalf("%q, %v", mcpclient.ToReply(res).Text(), err)
	}
}
