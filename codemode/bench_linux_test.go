package codemode_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/codemode"
	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
	"github.com/mcpbridge/mcpbridge/tool"
)

// What a script costs, in each place its interpreter runs, by the size
// of the one result it takes (none: the cost of a run itself): the time of
// a run from start to end (ns/op), and the peak resident memory of the
// interpreter's process as the script ends (its own process; in the
// host's, what the host's peak grew by over the runs).
//
//	go test -run '^$' -bench BenchmarkScript ./codemode/
func BenchmarkScript(b *testing.B) {
	var peak int64 // the interpreter's, read by the script's last call
	peek, err := tool.Func("peek", "Reads the interpreter's peak resident size.", func(context.Context, struct{}) (string, error) {
		for _, k := range proctest.Children(os.Getpid()) {
			if args, _ := os.ReadFile("/proc/" + strconv.Itoa(k) + "/cmdline"); strings.HasSuffix(string(args), " (codemode)\x00") {
				peak = max(peak, statusKB(k, "VmHWM:")<<10)
			}
		}
		return "", nil
	})
	if err != nil {
		b.Fatal(err)
	}
	lts, err := tool.Func("lt", "n characters <.", func(_ context.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		return strings.Repeat("<", in.N), nil
	})
	if err != nil {
		b.Fatal(err)
	}
	set := tool.Join(peek, lts)
	for _, mode := range []string{"own-process", "in-process"} {
		for _, n := range []int{0, 64 << 10, 1 << 20, 16 << 20} {
			b.Run(fmt.Sprintf("%s/result=%d", mode, n), func(b *testing.B) {
				rt, err := codemode.New(set, codemode.Config{})
				if err != nil {
					b.Fatal(err)
				}
				if mode == "in-process" {
					codemode.InProcess(rt)
				}
				script := "await tools.local.peek(); return 1"
				if n > 0 {
					script = fmt.Sprintf("const s = await tools.local.lt({n: %d}); await tools.local.peek(); return s.length", n)
				}
				peak = 0
				measured := resetPeakRSS()
				base, _ := peakRSS()
				for b.Loop() {
					if _, err := rt.Run(context.Background(), script); err != nil {
						b.Fatal(err)
					}
				}
				switch own, ok := peakRSS(); {
				case mode == "own-process":
					b.ReportMetric(float64(peak)/(1<<20), "interp-peak-MiB")
				case measured && ok:
					b.ReportMetric(float64(own-base)/(1<<20), "host-peak-grew-MiB")
				}
			})
		}
	}
}

// statusKB reads a field of /proc/pid/status given in kB.
func statusKB(pid int, field string) int64 {
	data, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	for line := range bytes.Lines(data) {
		if rest, ok := bytes.CutPrefix(line, []byte(field)); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(string(rest)), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
