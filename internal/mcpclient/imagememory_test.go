package mcpclient_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcpbridge/mcpbridge/tool"
)

// decodeChildEnv makes the test binary the child of
// TestImageDecodingMemory, which converts the results it names and says
// how much heap it ever took.
const decodeChildEnv = "MCPTOOL_DECODE_CHILD"

// Proves that what decoding a result's images costs is bounded by what it
// costs the decoder, not by pixels alone, and across concurrent calls:
// eight calls at once through Provider.Handler, each answered with four
// images of 4096x4096 pixels (the most an image may have), took the host
// to gigabytes: a progressive CMYK JPEG of 135 bytes makes Go's decoder
// allocate 320 MiB (its coefficients and planes) before it fails; a
// 16-bit PNG of 130 KB, 128 MiB (measured: 3335 and 2235 MiB of heap,
// 2.6 and 2.2 GB resident). Such images are now described from their
// headers and never decoded (TestDecodeCostErrsHigh holds the estimate;
// TestDecodersShareOneBudget, the bound across calls). Each case runs in a
// child process of its own, which reports the heap it ever obtained from
// the system (HeapSys: what the decoders needed at their peak, whatever
// the race detector adds) and its peak resident size.
func TestImageDecodingMemory(t *testing.T) {
	if spec := os.Getenv(decodeChildEnv); spec != "" {
		decodeChild(t, spec)
		return
	}
	for _, tc := range []struct {
		kind  string
		image bool  // the images reach the model
		bound int64 // heap obtained, in MiB
	}{
		{"jpeg", false, 64},
		{"png16", false, 64},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			cmd := exec.CommandContext(t.Context(), self(t), "-test.run=^TestImageDecodingMemory$", "-test.count=1")
			cmd.Env = append(os.Environ(), decodeChildEnv+"="+tc.kind)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("child: %v\n%s%s", err, out, stderr.String())
			}
			figures := map[string]int64{}
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				if k, v, ok := strings.Cut(sc.Text(), "="); ok {
					n, _ := strconv.ParseInt(v, 10, 64)
					figures[k] = n
				}
			}
			if got := figures["images"] > 0; got != tc.image {
				t.Errorf("images reached the model: %v, want %v (%s)", got, tc.image, out)
			}
			heap := figures["heap-sys"] >> 20
			t.Logf("%s: heap obtained %d MiB, peak RSS %d MiB", tc.kind, heap, figures["peak-rss"]>>20)
			if heap == 0 || heap > tc.bound {
				t.Errorf("%s: the heap grew to %d MiB, want at most %d MiB\n%s", tc.kind, heap, tc.bound, out)
			}
		})
	}
}

// decodeChild makes eight concurrent calls through a provider's handler,
// each answered with four images of kind, and writes how many reached the
// model, the heap obtained from the system and the peak resident size.
func decodeChild(t *testing.T, kind string) {
	p, _, err := pipeProvider(t, "decoder-bombs")
	if err != nil {
		t.Fatal(err)
	}
	h := p.Handler()
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		images int
	)
	for range 8 {
		wg.Go(func() {
			res, err := h.Call(context.Background(), "echo", []byte(`{"kind":"`+kind+`"}`))
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, part := range res.Parts {
				if _, ok := part.(tool.ImagePart); ok {
					images++
				}
			}
		})
	}
	wg.Wait()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("images=%d\nheap-sys=%d\npeak-rss=%d\n", images, ms.HeapSys, peakRSS())
}

// peakRSS is the process's peak resident size from /proc, 0 where there
// is none.
func peakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n << 10
		}
	}
	return 0
}
