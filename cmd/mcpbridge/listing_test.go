//go:build linux

package main_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
)

// listingPeak bounds the memory of a command refusing vast-listing's
// listing: the baseline of the command (some 20 MiB) and go-sdk's decoding
// of two pages of 10 000 tools, far from the gigabytes of the whole.
const listingPeak = 256 << 20

// A server's listing is bounded in all, not only page by page: vast-listing
// offers a hundred legal pages of 10 000 tools (67 MiB listed), which
// `tools` and `serve` refused at the second page, naming the server, within
// listingPeak. Before, they kept every page: `tools` grew past 1.5 GB and
// was cut by its connect timeout, and `serve`, which also gives each tool to
// go-sdk, reached 9 GB. The server is served over HTTP by the test, so that
// the command has no child whose memory would count as its own.
func TestAVastListingIsRefusedInTensOfMiB(t *testing.T) {
	_, srv := hostile.Start(t, "vast-listing")
	const refusal = `tools/list: page 2 takes the listing past 10000 entries in all`

	t.Run("tools", func(t *testing.T) {
		cmd := exec.Command(bin, "tools", "--url", srv.URL+"/mcp", "--name", "vast")
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		stop := watchRSS(t, cmd.Process.Pid, listingPeak)
		err := cmd.Wait()
		killed := stop()
		peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
		t.Logf("mcpbridge tools: peak resident memory %d MiB", peak>>20)
		if killed {
			t.Fatalf("killed past %d MiB: the listing is not bounded in all", listingPeak>>20)
		}
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 || !strings.Contains(stderr.String(), `server "vast" did not start: `+refusal) {
			t.Errorf("exit %v; stderr:\n%s\nwant status 3 and the refusal", err, stderr.String())
		}
		if peak > listingPeak {
			t.Errorf("peak resident memory %d MiB, want at most %d", peak>>20, listingPeak>>20)
		}
	})

	t.Run("serve", func(t *testing.T) {
		_, good := hostile.Start(t, "")
		config := writeConfig(t, t.TempDir(), "mcp.json", `{"mcpServers": {"vast": {"url": "`+srv.URL+`/mcp"}, "good": {"url": "`+good.URL+`/mcp"}}}`)
		cmd, stderr := started(t, append(os.Environ(), "NO_COLOR=1"), os.Kill, "serve", "--config", config, "--http", "127.0.0.1:0")
		stop := watchRSS(t, cmd.Process.Pid, listingPeak)
		var said []string
		sc := bufio.NewScanner(stderr)
		for sc.Scan() && !strings.HasPrefix(sc.Text(), "mcpbridge gateway: ") {
			said = append(said, sc.Text())
		}
		peak := hwm(cmd.Process.Pid)
		if killed := stop(); killed {
			t.Fatalf("killed past %d MiB: the listing is not bounded in all", listingPeak>>20)
		}
		t.Logf("mcpbridge serve: peak resident memory %d MiB once serving", peak>>20)
		if said := strings.Join(said, "\n"); !strings.Contains(said, "server=vast") || !strings.Contains(said, refusal) {
			t.Errorf("stderr:\n%s\nwant the refusal", said)
		}
		if peak == 0 || peak > listingPeak {
			t.Errorf("peak resident memory %d MiB, want at most %d", peak>>20, listingPeak>>20)
		}
	})
}

// watchRSS watches the peak resident memory (VmHWM) of process pid, and
// kills it once that passes limit: a test of a memory bound must not let
// the command it finds unbounded take the machine's memory. stop ends the
// watch and reports whether it killed the process.
func watchRSS(t *testing.T, pid int, limit int64) (stop func() (killed bool)) {
	t.Helper()
	done, result := make(chan struct{}), make(chan bool, 1)
	go func() {
		tick := time.NewTicker(5 * time.Millisecond) // another process: nothing to wait on
		defer tick.Stop()
		for {
			select {
			case <-done:
				result <- false
				return
			case <-tick.C:
			}
			if hwm(pid) > limit {
				syscall.Kill(pid, syscall.SIGKILL)
				result <- true
				return
			}
		}
	}()
	return func() bool {
		close(done)
		return <-result
	}
}

// hwm is the peak resident memory of process pid in bytes, 0 once it has
// exited.
func hwm(pid int) int64 {
	data, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// serve's listing bound is a flag and a key of the config's
// "gateway"."limits", the flag first: a required server of three pages of
// one tool stops serve under a bound of two.
func TestServeListingBoundFlagAndConfig(t *testing.T) {
	_, srv := hostile.Start(t, "pages")
	dir := t.TempDir()
	servers := `"mcpServers": {"paged": {"url": "` + srv.URL + `", "required": true}}`
	const refusal = `did not start: tools/list: page 3 takes the listing past 2 entries in all`
	plain := writeConfig(t, dir, "plain.json", `{`+servers+`}`)
	r := mcpbridge(t, dir, "", nil, "serve", "--config", plain, "--http", "127.0.0.1:0", "--max-listing-items", "2")
	if r.code == 0 || !strings.Contains(r.err, refusal) {
		t.Errorf("--max-listing-items 2: status %d, stderr:\n%s", r.code, r.err)
	}
	bounded := writeConfig(t, dir, "bounded.json", `{`+servers+`, "gateway": {"limits": {"listingItems": 2}}}`)
	r = mcpbridge(t, dir, "", nil, "serve", "--config", bounded, "--http", "127.0.0.1:0")
	if r.code == 0 || !strings.Contains(r.err, refusal) {
		t.Errorf(`"listingItems": 2: status %d, stderr:\n%s`, r.code, r.err)
	}
	r = mcpbridge(t, dir, "", nil, "serve", "--config", bounded, "--http", "127.0.0.1:0", "--max-listing-items", "1", "--max-listing-bytes", "-1")
	if r.code != 2 || !strings.Contains(r.err, `invalid value "-1" for --max-listing-bytes: want a positive bound`) {
		t.Errorf("--max-listing-bytes -1: status %d, stderr:\n%s", r.code, r.err)
	}
}
