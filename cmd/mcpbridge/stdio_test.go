package main_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
)

// A call stuck writing 4 MiB to a server that stopped reading ends on
// Ctrl-C, SIGTERM or SIGHUP (a closed terminal): at once, with the shell's
// status for the signal, one line on stderr, and the server gone.
func TestSignalsEndAStuckCall(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		name string
	}{
		{syscall.SIGINT, "SIGINT"},
		{syscall.SIGTERM, "SIGTERM"},
		{syscall.SIGHUP, "SIGHUP"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			pidfile, stuck := filepath.Join(dir, "pid"), filepath.Join(dir, "stuck")
			args := append([]string{"call", "echo", "-",
				"--env", hostile.PIDFileEnv + "=" + pidfile, "--env", hostile.StuckFileEnv + "=" + stuck},
				hostileServer(t, "deaf")...)
			cmd := exec.Command(bin, args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "NO_COLOR=1")
			cmd.Stdin = strings.NewReader(`{"text":"` + strings.Repeat("a", 4<<20) + `"}`)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() {
				cmd.Wait()
				close(done)
			}()
			defer func() {
				cmd.Process.Kill()
				<-done
			}()
			proctest.WaitFile(t, stuck)
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatalf("mcpbridge did not exit on %s", tc.name)
			}
			if got, want := cmd.ProcessState.ExitCode(), 128+int(tc.sig); got != want {
				t.Errorf("exit status %d, want %d", got, want)
			}
			var lines []string // but the progress line saying the server is ready
			for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
				if !strings.HasPrefix(l, "✓ ") {
					lines = append(lines, l)
				}
			}
			if len(lines) != 1 || lines[0] != "mcpbridge call: interrupted by "+tc.name {
				t.Errorf("stderr %q, want one line saying it was interrupted by %s", stderr.String(), tc.name)
			}
			data, err := os.ReadFile(pidfile)
			if err != nil {
				t.Fatal(err)
			}
			if pid, _ := strconv.Atoi(string(data)); pid == 0 || proctest.Alive(pid) {
				t.Errorf("the server (pid %d) outlived mcpbridge", pid)
			}
		})
	}
}

// A server that floods stdout with what is not JSON-RPC fails at once, in
// one line that quotes it without its terminal escapes.
func TestServerNotSpeakingJSONRPC(t *testing.T) {
	r := mcpbridge(t, t.TempDir(), "", nil, append([]string{"tools"}, hostileServer(t, "flood")...)...)
	expect(t, r, 3, "not JSON-RPC", hostile.Banner)
	if lines := strings.Split(strings.TrimSpace(r.err), "\n"); len(lines) != 1 {
		t.Errorf("stderr has %d lines, want one:\n%s", len(lines), r.err)
	}
	if strings.ContainsAny(r.err, "\x1b\x07") {
		t.Errorf("stderr carries terminal escapes: %q", r.err)
	}
}
