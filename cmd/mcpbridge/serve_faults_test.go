//go:build unix

package main_test

import (
	"context"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
)

// SIGTERM with a call in flight that outlasts --drain: from the signal on,
// a new call is refused and /readyz answers 503; once the bound passes the
// process exits with the signal's status, the call cut short, and says so.
func TestServeDrainRefusesNewCallsAndKeepsItsBound(t *testing.T) {
	url, cmd, lines := startServe(t, "--drain", "2s")
	cs, progressed := connectServe(t, url, "")
	// At least 20 s: the drain's 2 s pass long before.
	long := &mcp.CallToolParams{Name: "slow_count", Arguments: map[string]any{"to": 20, "delay_ms": 1000}}
	long.SetProgressToken("p")
	finished := make(chan bool, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), long)
		finished <- err == nil && !res.IsError
	}()
	select {
	case <-progressed:
	case ok := <-finished:
		t.Fatalf("the long call ended at once (succeeded: %v)", ok)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	var said []string
	for l := range lines {
		said = append(said, l)
		if strings.Contains(l, "gateway: draining") {
			break
		}
	}
	_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "slow_count", Arguments: map[string]any{"to": 1, "delay_ms": 0}})
	if err == nil || !strings.Contains(err.Error(), "shutting down, not taking new requests") {
		t.Errorf("a call after SIGTERM: %v, want it refused", err)
	}
	resp, err := http.Get(strings.TrimSuffix(url, "/mcp") + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/readyz while draining: %s", resp.Status)
	}
	if <-finished {
		t.Error("the call in flight finished: the drain did not keep its bound")
	}
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 143 {
		t.Errorf("exit: %v, want status 143", err)
	}
	for l := range lines {
		said = append(said, l)
	}
	if !slices.ContainsFunc(said, func(l string) bool { return strings.Contains(l, "drain incomplete") }) {
		t.Errorf("the log does not say the drain was cut:\n%s", strings.Join(said, "\n"))
	}
}

// The server behind the gateway is killed while 16 clients of both
// generations call it: each call is answered (a read-only call caught by
// the kill is sent again; one that arrives while the server restarts is a
// result marked isError that says so), the gateway stays up, the server is
// started again, and calls succeed on it. The servers' lifecycle is
// logged without -v: an operator sees the loss and the reconnection.
func TestServeSurvivesAServerKilledUnderLoad(t *testing.T) {
	url, cmd, lines := startServe(t)
	servers := proctest.Children(cmd.Process.Pid)
	if len(servers) != 1 {
		t.Fatalf("want one server process, got %v", servers)
	}
	const clients, calls = 16, 10
	var (
		wg                 sync.WaitGroup
		mu                 sync.Mutex
		succeeded, refused int
		progress           []<-chan struct{}
	)
	for i := range clients {
		version := []string{"2026-07-28", "2025-11-25"}[i%2]
		cs, progressed := connectServe(t, url, version)
		progress = append(progress, progressed)
		wg.Go(func() {
			for range calls {
				params := &mcp.CallToolParams{Name: "slow_count", Arguments: map[string]any{"to": 3, "delay_ms": 20}}
				params.SetProgressToken("p")
				res, err := cs.CallTool(t.Context(), params)
				if err != nil {
					t.Errorf("%s client: %v", version, err)
					return
				}
				mu.Lock()
				if res.IsError {
					refused++
					if msg := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(msg, `server "demo"`) {
						t.Errorf("a failed call does not name its server: %s", msg)
					}
				} else {
					succeeded++
				}
				mu.Unlock()
			}
		})
	}
	loaded := make(chan struct{})
	go func() {
		wg.Wait()
		close(loaded)
	}()
	select {
	case <-progress[0]: // calls are in flight on the server
	case <-loaded:
		t.Fatal("the calls ended before any was in flight")
	}
	if err := syscall.Kill(servers[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for l := range lines {
		if strings.Contains(l, "reconnected to the MCP server") {
			break // the server is back
		}
	}
	go func() {
		for range lines { // the rest of the request log
		}
	}()
	<-loaded
	t.Logf("%d calls succeeded, %d refused while the server restarted", succeeded, refused)
	cs, _ := connectServe(t, url, "")
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "slow_count", Arguments: map[string]any{"to": 1, "delay_ms": 0}})
	if err != nil || res.IsError {
		t.Fatalf("after the restart: %v %+v", err, res)
	}
	if now := proctest.Children(cmd.Process.Pid); len(now) != 1 || now[0] == servers[0] {
		t.Errorf("server processes %v after killing %d", now, servers[0])
	}
}
