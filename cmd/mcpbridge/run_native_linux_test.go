package main_test

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
)

// A script whose time goes into one call of a built-in, which never
// yields to the interpreter's own check (about 9 minutes).
const nativeScript = `return "a".repeat(3e7).indexOf("a".repeat(2e4) + "b")`

// startRun starts mcpbridge run on script with args, and returns it once
// the script's interpreter, a process of its own, runs, with the
// processes run started: the interpreter and the demo server.
func startRun(t *testing.T, script string, args ...string) (*exec.Cmd, *bytes.Buffer, []int) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"run", "-"}, args...)...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(append(os.Environ(), "NO_COLOR=1"), ownCache(t)...)
	cmd.Stdin = strings.NewReader(script)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	var kids []int
	proctest.Eventually(t, "the script's interpreter to start", func() bool {
		kids = proctest.Children(cmd.Process.Pid)
		for _, k := range kids {
			if args, _ := os.ReadFile("/proc/" + strconv.Itoa(k) + "/cmdline"); strings.HasSuffix(string(args), " (codemode)\x00") {
				return true
			}
		}
		return false
	})
	return cmd, &stderr, kids
}

// ended waits for cmd to exit, and says its exit status.
func ended(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(proctest.Bound):
		cmd.Process.Kill()
		<-done
		t.Fatal("mcpbridge run did not exit")
	}
	return cmd.ProcessState.ExitCode()
}

// gone fails the test if a process of pids is alive.
func gone(t *testing.T, pids []int) {
	t.Helper()
	for _, p := range pids {
		if proctest.Alive(p) {
			t.Errorf("process %d outlived mcpbridge run", p)
		}
	}
}

// A script inside one long built-in is stopped at --timeout, and at once
// by Ctrl-C or SIGTERM, with a line that says so; no process is left.
func TestRunStopsANativeCall(t *testing.T) {
	cmd, stderr, kids := startRun(t, nativeScript, "--timeout", "1s")
	if code := ended(t, cmd); code != 1 || !strings.Contains(stderr.String(), "mcpbridge run: the script was stopped at its time budget of 1s (raise it with --timeout)") {
		t.Fatalf("exit status %d; stderr:\n%s", code, stderr)
	}
	gone(t, kids)
	for _, sig := range []struct {
		signal syscall.Signal
		name   string
	}{{syscall.SIGINT, "SIGINT"}, {syscall.SIGTERM, "SIGTERM"}} {
		cmd, stderr, kids := startRun(t, nativeScript)
		cmd.Process.Signal(sig.signal)
		if code := ended(t, cmd); code != 128+int(sig.signal) || !strings.Contains(stderr.String(), "mcpbridge run: interrupted by "+sig.name) {
			t.Fatalf("%s: exit status %d; stderr:\n%s", sig.name, code, stderr)
		}
		gone(t, kids)
	}
}
