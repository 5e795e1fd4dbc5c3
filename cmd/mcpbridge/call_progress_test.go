//go:build linux

package main_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A call the server reports progress on shows it on stderr: plain lines
// off a terminal (the first and the last at least; the rest a second
// apart), and the result as ever on stdout.
func TestCallShowsProgress(t *testing.T) {
	r := mcpbridge(t, t.TempDir(), "", nil, withServer(t, "progress", "call", "echo", `{"text":"hi"}`)...)
	expect(t, r, 0, "progress 1/3 step 1 of 3\n", "progress 3/3 step 3 of 3\n")
	if r.out != "done\n" {
		t.Errorf("stdout %q", r.out)
	}
}

// On a terminal, progress is a bar rewritten in place, cleared before the
// result.
func TestCallShowsAProgressBar(t *testing.T) {
	var out bytes.Buffer
	shown, code := onPTY(t, t.TempDir(), nil, "", func(cmd *exec.Cmd, term *os.File) {
		cmd.Stdout, cmd.Stderr = &out, term
	}, withServer(t, "progress", "call", "echo", `{"text":"hi"}`)...)
	if code != 0 || out.String() != "done\n" {
		t.Fatalf("status %d, stdout %q", code, out.String())
	}
	for _, want := range []string{"\r[██████··············] 1/3 step 1 of 3\x1b[K", "\r[████████████████████] 3/3 step 3 of 3\x1b[K\r\x1b[K"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the terminal lacks %q:\n%q", want, shown)
		}
	}
}
