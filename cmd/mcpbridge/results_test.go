package main_test

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// What a tool result can do to the host: through the built command, with
// a hostile server answering every call.

// A corrupt part costs that part only: the rest is printed, the part is a
// note, and the call succeeds. So with --raw, which prints the result.
func TestCallKeepsTheRestOfACorruptResult(t *testing.T) {
	note := "[image content (image/png) not shown to the model]"
	r := mcpbridge(t, "", "", nil, append([]string{"call", "echo"}, hostileServer(t, "corrupt-image")...)...)
	expect(t, r, 0, `["kept","`+note+`"]`)
	r = mcpbridge(t, "", "", nil, append([]string{"call", "echo", "--raw"}, hostileServer(t, "corrupt-image")...)...)
	expect(t, r, 0, `"text": "kept"`, `"text": "`+note+`"`)
}

// A result the protocol does not allow is a protocol error: exit status 3
// and one line naming server, tool and fault.
func TestCallRefusesANullResult(t *testing.T) {
	for mode, fault := range map[string]string{
		"null-result":  "the result is null",
		"empty-result": "the result has no content",
	} {
		r := mcpbridge(t, "", "", nil, append([]string{"call", "echo"}, hostileServer(t, mode)...)...)
		expect(t, r, 3)
		// After the status line that says the server is ready.
		lines := strings.Split(strings.TrimSpace(r.err), "\n")
		last := lines[len(lines)-1]
		if !strings.HasPrefix(last, "mcpbridge call: ") || !strings.HasSuffix(last, `tools/call "echo": `+fault) ||
			strings.Count(r.err, "mcpbridge call:") != 1 || r.out != "" {
			t.Errorf("%s: want the error in one line; stdout:\n%s\nstderr:\n%s", mode, r.out, r.err)
		}
	}
}

// A PNG of 1.5 MB that declares 20000x20000 pixels (1.6 GB decoded) is a
// note, and the command's memory stays that of a small result.
func TestCallImageBomb(t *testing.T) {
	args := append([]string{"call", "echo"}, hostileServer(t, "image-bomb")...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v; stdout:\n%s", err, out)
	}
	if want := `["before the image","[image content (image/png) not shown to the model]"]`; strings.TrimSpace(string(out)) != want {
		t.Errorf("stdout:\n%s\nwant %s", out, want)
	}
	// The peak of the command and of the server it waited for, the test
	// binary (under -race, a few hundred MB of its own): far below the
	// 1.6 GB a decoded image would take.
	if rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10; rss > 512<<20 {
		t.Errorf("peak resident memory %d MB", rss>>20)
	}
}
