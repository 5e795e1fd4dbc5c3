package main_test

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
)

// Proves that a call answered with images that cost their decoder more
// than their pixels says so, and does not decode them: four progressive
// CMYK JPEGs of 4096x4096 pixels (135 bytes each, 320 MiB for Go's decoder)
// took the command to 321 MiB, four 16-bit PNGs to 284 MiB. The server
// runs in this process, so the peak measured is the command's alone.
func TestCallDecoderBombs(t *testing.T) {
	_, srv := hostile.Start(t, "decoder-bombs")
	for _, kind := range []string{"jpeg", "png16"} {
		cmd := exec.Command(bin, "call", "echo", `{"kind":"`+kind+`"}`, "--url", srv.URL+"/mcp")
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		base := residentSize(t)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v; stdout:\n%s", kind, err, out)
		}
		if n := strings.Count(string(out), "not shown to the model"); n != 4 {
			t.Errorf("%s: %d notes, want 4:\n%s", kind, n, out)
		}
		// A command's peak counts this process's size as it started it
		// (under -race, 150 MiB).
		rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
		t.Logf("%s: peak resident memory %d MiB, this process %d MiB as it started", kind, rss>>20, base>>20)
		if rss > base+64<<20 {
			t.Errorf("%s: peak resident memory %d MiB", kind, rss>>20)
		}
	}
}

// residentSize is this process's resident size now, from /proc.
func residentSize(t *testing.T) int64 {
	t.Helper()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n << 10
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}
