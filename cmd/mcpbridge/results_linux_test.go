package main_test

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

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
