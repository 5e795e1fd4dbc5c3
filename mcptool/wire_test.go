package mcptool_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/proctest"

	"github.com/mcpbridge/mcpbridge/internal/hostile"
	"github.com/mcpbridge/mcpbridge/mcptool"
)

// The tests of a stdio server misbehaving on the wire: one that stops
// reading its stdin, one that writes what is not JSON-RPC, answers that
// cannot be decoded. None may hang the caller or outlive Close.

// bound is how long these tests wait for what must happen at once or at a
// short timeout; passing it means the code under test hung.
const bound = 30 * time.Second

// within waits for a result on ch, failing the test if none comes in time.
func within[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(bound):
		t.Fatalf("%s: still blocked after %v", what, bound)
		var zero T
		return zero
	}
}

// deafServer starts a hostile server that stops reading stdin once it has
// listed its tools, and returns the provider, the file that appears once
// the server's stdin pipe is full, and a function that returns its pid.
func deafServer(t *testing.T, opts ...mcptool.Option) (p *mcptool.Provider, stuck string, pid func() int) {
	t.Helper()
	dir := t.TempDir()
	pidfile, stuck := filepath.Join(dir, "pid"), filepath.Join(dir, "stuck")
	opts = append(opts, mcptool.WithEnv(map[string]string{hostile.PIDFileEnv: pidfile, hostile.StuckFileEnv: stuck}))
	p = raw(t, "deaf", opts...)
	connect(t, p)
	return p, stuck, func() int {
		data, err := os.ReadFile(pidfile)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.Atoi(string(data))
		return n
	}
}

func exists(path string) func() bool {
	return func() bool {
		_, err := os.Stat(path)
		return err == nil
	}
}

// closeWithin closes p, failing the test if that hangs, and checks that the
// server process is gone.
func closeWithin(t *testing.T, p *mcptool.Provider, pid int) {
	t.Helper()
	closed := make(chan error, 1)
	go func() { closed <- p.Close() }()
	if err := within(t, "Close", closed); err != nil {
		t.Errorf("Close: %v", err)
	}
	if pid == 0 || !gone(pid) {
		t.Errorf("server process %d still running after Close", pid)
	}
}

// bigText is an argument larger than a pipe holds, so that writing it to a
// server that does not read blocks.
var bigText = map[string]any{"text": strings.Repeat("a", 4<<20)}

func TestStdioStuckWriteFailsAtCallTimeout(t *testing.T) {
	p, _, pid := deafServer(t, mcptool.WithCallTimeout(300*time.Millisecond))
	errc := make(chan error, 1)
	go func() {
		_, err := p.CallTool(context.Background(), "echo", bigText)
		errc <- err
	}()
	err := within(t, "a call whose write is stuck", errc)
	var te *mcptool.TransportError
	if !errors.As(err, &te) || !te.Timeout() || te.Server != "raw" || te.Op != `tools/call "echo"` {
		t.Fatalf("got %v; want a timeout TransportError naming server and tool", err)
	}
	closeWithin(t, p, pid())
}

func TestStdioStuckWriteFailsWithContext(t *testing.T) {
	p, stuck, pid := deafServer(t, mcptool.WithCallTimeout(-1))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := p.CallTool(ctx, "echo", bigText)
		errc <- err
	}()
	eventually(t, "the write to block", exists(stuck))
	cancel()
	err := within(t, "a cancelled call whose write is stuck", errc)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), `server "raw": tools/call "echo"`) {
		t.Fatalf("got %v; want context.Canceled naming server and tool", err)
	}
	if !strings.Contains(err.Error(), "not reading its stdin") {
		t.Errorf("error %q does not say the server stopped reading", err)
	}
	closeWithin(t, p, pid())
}

// Many calls to a wedged server, one blocked writing and the others waiting
// their turn, none with a bound: Close ends them all and the server.
func TestStdioCloseWithStuckWrites(t *testing.T) {
	p, stuck, pid := deafServer(t, mcptool.WithCallTimeout(-1), mcptool.WithRequestTimeout(-1))
	const calls = 8
	errc := make(chan error, calls)
	for range calls {
		go func() {
			_, err := p.CallTool(context.Background(), "echo", map[string]any{"text": strings.Repeat("b", 256<<10)})
			errc <- err
		}()
	}
	eventually(t, "the writes to block", exists(stuck))
	n := pid()
	closeWithin(t, p, n)
	for i := range calls {
		if err := within(t, "call "+strconv.Itoa(i), errc); err == nil {
			t.Error("a call to a server that never read it succeeded")
		}
	}
}

func TestStdioBannerTolerated(t *testing.T) {
	p := raw(t, "banner")
	connect(t, p)
	if got, err := p.CallTool(context.Background(), "echo", map[string]any{"text": "hi"}); err != nil || got != "hi" {
		t.Fatalf("echo: %q, %v", got, err)
	}
}

// A server that writes something else than JSON-RPC, and nothing more, is
// named with what it wrote, cut to one safe line, when the connect ends.
func TestStdioNotJSONSaysWhatTheServerWrote(t *testing.T) {
	var logs proctest.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p := raw(t, "not-json", mcptool.WithLogger(logger))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- p.Connect(ctx) }()
	// Ended by the caller once both lines are in: a connect deadline would
	// race the server's start.
	eventually(t, "the server's two lines", func() bool {
		return strings.Count(logs.String(), "not JSON-RPC") == 2
	})
	cancel()
	err := within(t, "Connect", errc)
	msg := err.Error()
	if !errors.Is(err, context.Canceled) || !strings.Contains(msg, `wrote to stdout what is not JSON-RPC: "`+hostile.Banner) || !strings.Contains(msg, "Press Ctrl-C to stop") {
		t.Errorf("error %q does not say what the server wrote", msg)
	}
	if strings.ContainsAny(msg, "\x1b\x07\n") {
		t.Errorf("error %q carries control characters", msg)
	}
}

// A server that floods stdout with what is not JSON-RPC before saying
// anything valid fails at once, not at the connect timeout (an hour here).
func TestStdioFloodFailsFast(t *testing.T) {
	p := raw(t, "flood", mcptool.WithConnectTimeout(time.Hour))
	errc := make(chan error, 1)
	go func() { errc <- p.Connect(context.Background()) }()
	err := within(t, "Connect to a server flooding stdout", errc)
	var te *mcptool.TransportError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "not JSON-RPC") || !strings.Contains(err.Error(), hostile.Banner) {
		t.Fatalf("got %v; want a TransportError saying what the server wrote", err)
	}
}
