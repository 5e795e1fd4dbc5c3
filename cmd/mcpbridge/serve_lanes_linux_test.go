package main_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
	"github.com/mcpbridge/mcpbridge/internal/testing/oauthtest"
)

// A server that floods its log (160 MiB of messages of 4 KiB, when a
// client asks for it at debug level) while one client of the gateway asked
// for it and never reads its stream, and another reads it, keeps the
// gateway's memory within tens of MiB: the attacker loses its stream when
// its queue is full, and nothing queues for it past that. Before, the
// gateway wrote each message to the clients on the one goroutine that
// reads the server, which the attacker held, while the messages piled up
// behind it (797 MiB for 600 MiB of them).
func TestServeMemoryStaysBoundedWhileAServerFloodsItsLog(t *testing.T) {
	const bound = 64 << 20 // over the gateway's peak before the flood
	dir := t.TempDir()
	self, _ := os.Executable()
	cfg := writeConfig(t, dir, "mcp.json", fmt.Sprintf(`{"mcpServers": {"flood": {"command": %q, "env": {%q: "log-flood", "GORACE": "atexit_sleep_ms=0"}}}}`, self, hostile.ChildEnv))
	url, cmd, lines := startServe(t, "--config", cfg)
	var said atomic.Value // the gateway's log, which a full pipe would stall
	go func() {
		var all []string
		for l := range lines {
			if strings.Contains(l, "dropped") || strings.Contains(l, "fell behind") {
				all = append(all, l)
				said.Store(all)
			}
		}
	}()
	attacker := hostile.StallSession(t, url, "", "info")
	var read atomic.Int64
	reader, err := mcp.NewClient(&mcp.Implementation{Name: "reader"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(context.Context, *mcp.LoggingMessageRequest) { read.Add(1) },
	}).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	before := peakRSS(t, cmd.Process.Pid)
	// The reader asks for debug: the server floods, and the gateway answers
	// once it handled the flood. Bounded, so that a gateway that stalls
	// fails the test rather than hanging it.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	err = reader.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"})
	peak := peakRSS(t, cmd.Process.Pid)
	t.Logf("the gateway's peak RSS: %d MiB before the flood of %d MiB, %d MiB after; the reader read %d of %d messages",
		before>>20, hostile.FloodCount*hostile.FloodSize>>20, peak>>20, read.Load(), hostile.FloodCount)
	if l, _ := said.Load().([]string); len(l) > 0 {
		t.Logf("the gateway said:\n%s", strings.Join(l, "\n"))
	}
	if err != nil {
		t.Fatalf("the flood: %v", err)
	}
	if peak-before > bound {
		t.Fatalf("the gateway's peak RSS grew by %d MiB during the flood, over %d MiB", (peak-before)>>20, bound>>20)
	}
	attacker.Ended() // the gateway cut its stream: reading ends
}

// peakRSS is the peak resident set size of the process pid, in bytes
// (VmHWM in /proc/pid/status).
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc status")
	return 0
}

// A client that never reads its answers (40 calls of a 5 MiB result in
// sessions of its own, whose calls give back their slots before their
// answers are written) holds the gateway's memory no further than its
// bound of answers not yet read (32 MiB by default): past it, its answers
// are refused in their place, and its next calls too. Before, each answer
// waited whole in its lane: the gateway grew by 465 MiB here, as by 1857
// MiB for 384 calls of 15 MiB. Another client's calls go on meanwhile.
func TestServeMemoryStaysBoundedWhileAClientDoesNotRead(t *testing.T) {
	const bound = 200 << 20 // the client's bound, what is read and refused meanwhile, and the collector's slack
	dir := t.TempDir()
	self, _ := os.Executable()
	cfg := writeConfig(t, dir, "mcp.json", fmt.Sprintf(`{"mcpServers": {"big": {"command": %q, "env": {%q: "big-listed", "GORACE": "atexit_sleep_ms=0"}}}}`, self, hostile.ChildEnv))
	tokens := writeConfig(t, dir, "tokens.txt", "mallory tok-mallory\nbob tok-bob\n")
	url, cmd, _ := startServe(t, "--config", cfg, "--token-file", tokens)
	before := peakRSS(t, cmd.Process.Pid)
	const calls, size = 40, 5 << 20
	for range calls {
		hostile.StallSessionCall(t, url, "tok-mallory", "big_big", map[string]any{"size": size}) // waits for its answer's headers
	}
	peak := peakRSS(t, cmd.Process.Pid)
	t.Logf("the gateway's peak RSS: %d MiB before, %d MiB once %d answers of %d MiB went to a client that does not read", before>>20, peak>>20, calls, size>>20)
	if peak-before > bound {
		t.Fatalf("the gateway's peak RSS grew by %d MiB, over %d MiB", (peak-before)>>20, bound>>20)
	}
	bob, err := mcp.NewClient(&mcp.Implementation{Name: "bob"}, nil).Connect(t.Context(),
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: oauthtest.Bearer("tok-bob")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bob.Close()
	res, err := bob.CallTool(t.Context(), &mcp.CallToolParams{Name: "big_big", Arguments: map[string]any{"size": 1 << 20}})
	if err != nil || res.IsError {
		t.Fatalf("bob, beside mallory: %v %v", res, err)
	}
}
