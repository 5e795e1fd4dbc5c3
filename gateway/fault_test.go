package gateway_test

import (
	"context"
	"os"
	"testing"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
)

// demoServer is the test binary started as the demo server over stdio.
func demoServer(t *testing.T) config.Server {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return config.Server{Name: "demo", Command: exe, Required: true,
		Env: map[string]string{demo.ChildEnv: "stdio", "GORACE": "atexit_sleep_ms=0"}}
}

func TestAServerKilledDuringACallIsRestartedAndTheCallResent(t *testing.T) {
	g := start(t, []config.Server{demoServer(t)}, nil)
	url, _ := serve(t, g)
	cs := connect(t, url, versions[0], nil, nil)
	children := proctest.Children(os.Getpid())
	if len(children) != 1 {
		t.Fatalf("want one server process, got %v", children)
	}
	progressed := make(chan struct{}, 8)
	cs2 := connect(t, url, versions[1], &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { progressed <- struct{}{} },
	}, nil)
	params := &mcp.CallToolParams{Name: "demo_slow_count", Arguments: map[string]any{"to": 3, "delay_ms": 100}}
	params.SetProgressToken("p")
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs2.CallTool(t.Context(), params)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	<-progressed // the call is in flight on the server
	proc, err := os.FindProcess(children[0])
	if err == nil {
		err = proc.Kill()
	}
	if err != nil {
		t.Fatal(err)
	}
	// slow_count is read-only: the call is sent again once the server is back.
	if res := <-done; res == nil || res.IsError || text(t, res) != "counted to 3" {
		t.Fatalf("the call caught by the kill: %+v", res)
	}
	// The gateway stayed up, and serves every client on the new server.
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "demo_list_notes"})
	if err != nil || res.IsError {
		t.Fatalf("after the restart: %v %+v", err, res)
	}
	if !g.Ready() {
		t.Error("not ready after the restart")
	}
}
