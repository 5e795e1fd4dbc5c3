package stdio

import (
	"os/exec"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
)

// hasExited tells a running child from one that exited and is not reaped
// yet, and reaps nothing: Close relies on it to know whether the server
// ended before the host hung up.
func TestHasExited(t *testing.T) {
	running := exec.Command("sleep", "300")
	if err := running.Start(); err != nil {
		t.Fatal(err)
	}
	defer running.Wait()
	defer running.Process.Kill()
	if hasExited(running.Process.Pid) {
		t.Error("a running child said to have exited")
	}

	done := exec.Command("true")
	if err := done.Start(); err != nil {
		t.Fatal(err)
	}
	proctest.Eventually(t, "the child to exit", func() bool { return hasExited(done.Process.Pid) })
	if err := done.Wait(); err != nil {
		t.Fatalf("Wait after hasExited: %v; want the exit still there to reap", err)
	}
	if !hasExited(done.Process.Pid) {
		t.Error("a reaped child said to run")
	}
}
