package cli

import (
	"bytes"
	"strings"
	"testing"
)

// A command's program ends with the status mcpbridge ends with: its exit
// status, or 128+n when signal n ended it; a program that is missing is
// said in one line, with status 2.
func TestProgramStatus(t *testing.T) {
	for _, c := range []struct {
		program string
		args    []string
		code    int
	}{
		{"sh", []string{"-c", "exit 7"}, 7},
		{"sh", []string{"-c", "kill -KILL $$"}, 128 + 9},
		{"mcpbridge-no-such-program", nil, exitUsage},
	} {
		var errb bytes.Buffer
		cmd := &Command{Name: "x", program: c.program}
		code := runProgram(cmd, c.args, &Streams{In: strings.NewReader(""), Out: &errb, Err: &errb})
		if code != c.code {
			t.Errorf("%s %q: status %d, want %d (%s)", c.program, c.args, code, c.code, errb.String())
		}
		if c.code == exitUsage && strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("a missing program is said in %q", errb.String())
		}
	}
}
