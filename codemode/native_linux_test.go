package codemode_test

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/codemode"
	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
	"github.com/mcpbridge/mcpbridge/tool"
)

// Scripts whose time goes into one call of a built-in, which never
// yields to the interpreter's interrupt: the first alone takes minutes,
// the sort of the second more than every budget here.
var nativeScripts = []string{
	`return "a".repeat(3e7).indexOf("a".repeat(2e4) + "b")`,
	`const a = Array(5e5).fill(7); for (;;) a.sort()`,
}

// noChildren fails the test if a process of the test's own is left.
func noChildren(t *testing.T) {
	t.Helper()
	if kids := proctest.Children(os.Getpid()); len(kids) > 0 {
		t.Fatalf("processes %v are left", kids)
	}
}

// A built-in that never yields is stopped at the budget it reaches, CPU
// or time: the script runs in a process of its own, which the host kills,
// and none is left.
func TestNativeCallStopped(t *testing.T) {
	cpu := runtime(t, tool.Set{}, codemode.Config{CPUTime: time.Second})
	wall := runtime(t, tool.Set{}, codemode.Config{Timeout: time.Second})
	if !codemode.Isolated(cpu) {
		t.Fatal("the test's program serves interpreters (TestMain), and the runtime does not use them")
	}
	for _, script := range nativeScripts {
		_, err := cpu.Run(context.Background(), script)
		wantBudget(t, err, "CPUTime")
		noChildren(t)
		_, err = wall.Run(context.Background(), script)
		wantBudget(t, err, "Timeout")
		noChildren(t)
	}
	unharmed(t, cpu)
}

// Ctrl-C (the run's context cancelled) stops a script inside a built-in
// at once, its process killed. The script starts a call and goes on into
// the built-in; the call cancels the run.
func TestNativeCallCancelled(t *testing.T) {
	started := make(chan struct{}, len(nativeScripts))
	begin, err := tool.Func("begin", "Says the script started.", func(context.Context, struct{}) (string, error) {
		started <- struct{}{}
		return "go", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rt := runtime(t, begin, codemode.Config{})
	for _, script := range nativeScripts {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := rt.Run(ctx, "tools.local.begin();\n"+script)
			done <- err
		}()
		<-started
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v; want the context's error", err)
		}
		noChildren(t)
	}
}

// The script's process is held by the system to its budgets too (CPU
// time, address space), and has nothing of the host's environment.
func TestInterpreterProcessLimited(t *testing.T) {
	t.Setenv("MCPBRIDGE_TEST_SECRET", "s3cret")
	seen := make(chan []int, 1)
	look, err := tool.Func("look", "Looks at the interpreter's process.", func(context.Context, struct{}) (string, error) {
		seen <- proctest.Children(os.Getpid())
		<-seen
		return "", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rt := runtime(t, look, codemode.Config{CPUTime: 3 * time.Second, Memory: 32 << 20})
	done := make(chan error, 1)
	go func() {
		_, err := rt.Run(context.Background(), "await tools.local.look()")
		done <- err
	}()
	kids := <-seen
	if len(kids) != 1 {
		seen <- nil
		t.Fatalf("%d processes; want the interpreter's", len(kids))
	}
	pid := strconv.Itoa(kids[0])
	limits, _ := os.ReadFile("/proc/" + pid + "/limits")
	environ, _ := os.ReadFile("/proc/" + pid + "/environ")
	seen <- nil
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Max cpu time              5                    5 ", "Max core file size        0                    0 "} {
		if !strings.Contains(string(limits), want) {
			t.Errorf("limits lack %q:\n%s", want, limits)
		}
	}
	if strings.Contains(string(limits), "Max address space         unlimited") != raceOn { // the race detector's runtime needs it whole
		t.Errorf("no address space limit:\n%s", limits)
	}
	if strings.Contains(string(environ), "s3cret") {
		t.Errorf("the interpreter has the host's environment: %q", environ)
	}
	noChildren(t)
}
