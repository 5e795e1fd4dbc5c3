package mcpclient_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/tool"
)

// stepsServer has the tool steps, which reports three steps of progress
// when asked for it. After each report it pings the client: go-sdk's client
// handles what the server sends in order, so once the ping is answered,
// the report has been handled.
func stepsServer() *mcp.Server {
	server := newServer("steps")
	addTool(server, "steps", func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		token := req.Params.GetProgressToken()
		for i := 1; token != nil && i <= 3; i++ {
			req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: 3, Message: fmt.Sprintf("step %d", i)})
			if err := req.Session.Ping(ctx, nil); err != nil {
				return nil, err
			}
		}
		return textResult("done"), nil
	})
	return server
}

// A host that asks for a call's progress (tool.WithProgress) gets every
// report, through the handler and CallTool alike, even without a call
// timeout, which alone would not ask for progress.
func TestProgressReported(t *testing.T) {
	for _, timeout := range []time.Duration{-1, 0} {
		p, _ := inProcess(t, stepsServer(), mcpclient.WithCallTimeout(timeout))
		var mu sync.Mutex
		var got []string
		ctx := tool.WithProgress(context.Background(), func(pr tool.Progress) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, fmt.Sprintf("%v/%v %s", pr.Progress, pr.Total, pr.Message))
		})
		if _, err := p.Handler().Call(ctx, "steps", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := callText(ctx, p, "steps", nil); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		want := []string{"1/3 step 1", "2/3 step 2", "3/3 step 3"}
		if want = append(want, want...); !slices.Equal(got, want) {
			t.Errorf("call timeout %v: reported %q, want %q", timeout, got, want)
		}
		mu.Unlock()
	}
}
