package mcptool_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/hostile"
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

// gone reports whether the process pid has exited (a zombie counts: it
// will never run again).
func gone(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	fields := strings.Fields(string(data))
	// The state follows the command name in parentheses.
	for i, f := range fields {
		if strings.HasSuffix(f, ")") && i+1 < len(fields) {
			return fields[i+1] == "Z"
		}
	}
	return false
}

// eventually polls cond until it holds or a generous bound passes; it is for
// waiting on another process, which cannot signal us.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
