package main_test

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/cmd/internal/cli"
	"github.com/mcpbridge/mcpbridge/internal/testing/npmtest"
)

// A call the server runs as a task (the demo's, of the 2026-07-28
// extension) shows a line on stderr at each change of its status; a task
// that fails ends the call with the server's error.
func TestCallShowsTaskStatus(t *testing.T) {
	dir := t.TempDir()
	r := mcpbridge(t, dir, "", nil, "call", "tag_report", `{"tag":"work"}`)
	expect(t, r, 0, ": working: reading the notes\n", ": working: writing the report\n", ": completed: report written\n")
	if r.out != "report on \"work\": no notes carry it\n" {
		t.Errorf("stdout %q", r.out)
	}
	r = mcpbridge(t, dir, "", nil, "call", "broken_job")
	expect(t, r, 3, ": failed: the job broke halfway\n", `tools/call "broken_job": task `, "failed: the job broke halfway")
}

// Ctrl-C during a call the server runs as a task (server-everything's
// research, of protocol 2025-11-25) cancels the task on the server, which
// the last status line says.
func TestCallTaskCtrlC(t *testing.T) {
	everything := npmtest.Bin(t, "mcp-server-everything")
	cmd := exec.Command(bin, "call", "simulate-research-query", `{"topic":"tides"}`, "--", everything, "stdio")
	cmd.Dir = t.TempDir()
	cmd.Env = append(append(os.Environ(), "NO_COLOR=1", "MCPBRIDGE_CONFIG_DIR="+t.TempDir()), ownCache(t)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := cli.ReadLines(stderr)
	deadline := time.After(30 * time.Second)
	var seen []string
	next := func() string {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("stderr ended; it said:\n%s", strings.Join(seen, "\n"))
			}
			seen = append(seen, line)
			return line
		case <-deadline:
			cmd.Process.Kill()
			t.Fatalf("waited too long; stderr said:\n%s", strings.Join(seen, "\n"))
		}
		return ""
	}
	working := regexp.MustCompile(`^task (\S+): working: `)
	var id string
	for id == "" {
		if m := working.FindStringSubmatch(next()); m != nil {
			id = m[1]
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	for !strings.HasPrefix(next(), "task "+id+": cancelled") {
	}
	for range lines {
	}
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("exit status %d, want 130; stderr said:\n%s", code, strings.Join(seen, "\n"))
	}
}
