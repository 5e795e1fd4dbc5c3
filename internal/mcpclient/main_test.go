package mcpclient_test

import (
	"context"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
)

// The test binary doubles as the servers the tests start as subprocesses:
// the demo server, or a hostile one in the mode named by hostile.ChildEnv.
func TestMain(m *testing.M) {
	demo.ServeIfChild()
	hostile.ServeIfChild()
	goleak.VerifyTestMain(m)
}

// childEnv is the environment a test child needs: the mode, and no 1 s
// pause at exit under the race detector.
func childEnv(kv ...string) map[string]string {
	env := map[string]string{"GORACE": "atexit_sleep_ms=0"}
	for i := 0; i+1 < len(kv); i += 2 {
		env[kv[i]] = kv[i+1]
	}
	return env
}

func self(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// demoEnv starts the test binary as the demo server.
func demoEnv() map[string]string { return childEnv(demo.ChildEnv, "stdio") }

// callText calls the tool name as a host does (Provider.CallToolResult) and
// returns what a model reads of the result (ToReply), for a test that
// checks the text.
func callText(ctx context.Context, p *mcpclient.Provider, name string, args any) (string, error) {
	res, err := p.CallToolResult(ctx, name, args)
	if err != nil {
		return "", err
	}
	return mcpclient.ToReply(res).Text(), nil
}
