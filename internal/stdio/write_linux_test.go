package stdio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
)

// deafChild starts a hostile server that stops reading its stdin once it
// has answered tools/list, which this makes it do. It returns the file
// that appears once the server's stdin pipe is full.
func deafChild(t *testing.T) (*Conn, string) {
	t.Helper()
	stuck := filepath.Join(t.TempDir(), "stuck")
	return deafChildIn(t, "deaf", stuck, nil), stuck
}

// deafChildIn starts the hostile server in mode, a deaf one, and makes it
// deaf.
func deafChildIn(t *testing.T, mode, stuck string, logger *slog.Logger) *Conn {
	t.Helper()
	c := child(t, "")
	c.Env = map[string]string{hostile.ChildEnv: mode, hostile.StuckFileEnv: stuck, "GORACE": "atexit_sleep_ms=0"}
	c.Logger = logger
	conn := start(t, c)
	if r := call(t, conn, 1, "tools/list", ""); r.Error != nil {
		t.Fatal(r.Error)
	}
	return conn
}

// writeAsync writes msg from a goroutine; the channel gets Write's error.
func writeAsync(ctx context.Context, conn *Conn, msg jsonrpc.Message) <-chan error {
	errc := make(chan error, 1)
	go func() { errc <- conn.Write(ctx, msg) }()
	return errc
}

func wait(t *testing.T, what string, errc <-chan error) error {
	t.Helper()
	select {
	case err := <-errc:
		return err
	case <-time.After(testTimeout):
		t.Fatalf("%s: still blocked", what)
		return nil
	}
}

func bigRequest(id int, size int) *jsonrpc.Request {
	return request(id, "tools/call", `{"name":"echo","arguments":{"text":"`+strings.Repeat("a", size)+`"}}`)
}

// A write cut short leaves the stream corrupt: the connection fails, and
// says why, while a write abandoned before it began harms nothing.
func TestWriteAbandonedPartWay(t *testing.T) {
	conn, stuck := deafChild(t)
	ctx1, cancel1 := context.WithCancel(t.Context())
	defer cancel1()
	first := writeAsync(ctx1, conn, bigRequest(2, 4<<20))
	proctest.WaitFile(t, stuck)

	// Waiting for its turn, behind the stuck write: nothing sent.
	ctx2, cancel2 := context.WithCancel(t.Context())
	second := writeAsync(ctx2, conn, request(3, "ping", ""))
	cancel2()
	if err := wait(t, "a write waiting its turn", second); !errors.Is(err, context.Canceled) {
		t.Fatalf("second Write = %v, want context.Canceled", err)
	}
	if err := conn.unusable(); err != nil {
		t.Fatalf("the connection failed though nothing was sent: %v", err)
	}

	cancel1()
	err := wait(t, "a write cut short", first)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "not reading its stdin") {
		t.Fatalf("first Write = %v, want context.Canceled saying the server is not reading", err)
	}
	// Bounded, so that a connection left working fails the test rather
	// than hanging it.
	rctx, rcancel := context.WithTimeout(t.Context(), testTimeout)
	defer rcancel()
	_, err = conn.Read(rctx)
	if !errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "cut short") {
		t.Fatalf("Read = %v, want the connection failed as cut short", err)
	}
	if err := conn.Write(t.Context(), request(4, "ping", "")); !errors.Is(err, mcp.ErrConnectionClosed) {
		t.Fatalf("Write after the failure = %v", err)
	}
	if got := conn.Explain(errors.New("call failed")).Error(); !strings.Contains(got, "not reading its stdin") {
		t.Errorf("Explain = %q", got)
	}
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	if !processGone(conn.Pid()) {
		t.Error("server survived Close")
	}
}

// Writes of at most PIPE_BUF bytes are all or nothing: one blocked on a
// full pipe and abandoned sent nothing, and the connection goes on.
func TestWriteAbandonedBeforeItBegan(t *testing.T) {
	conn, stuck := deafChild(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	errc := make(chan error, 1)
	// Lines of exactly 1 KiB fill the pipe's 4 KiB pages to the last byte,
	// so that the pipe fills up for good.
	line := func(i int) *jsonrpc.Request {
		id := mustID(fmt.Sprintf("%08d", i))
		empty := &jsonrpc.Request{ID: id, Method: "ping", Params: json.RawMessage(`{"pad":""}`)}
		b, err := newEncoder().encode(empty)
		if err != nil {
			panic(err)
		}
		empty.Params = json.RawMessage(`{"pad":"` + strings.Repeat("p", 1024-len(b)) + `"}`)
		return empty
	}
	go func() {
		for i := 0; ; i++ {
			if err := conn.Write(ctx, line(i)); err != nil {
				errc <- err
				return
			}
		}
	}()
	proctest.WaitFile(t, stuck)
	cancel()
	if err := wait(t, "a write blocked on a full pipe", errc); !errors.Is(err, context.Canceled) {
		t.Fatalf("Write = %v, want context.Canceled", err)
	}
	if err := conn.unusable(); err != nil {
		t.Fatalf("the connection failed though nothing of the line was sent: %v", err)
	}
}

// A line longer than the pipe holds waits for the server to read it, past
// quickWrite, and goes out whole; the pipe's deadline is cleared after.
func TestWriteWaitsForRoomInThePipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	c := &Conn{stdin: w, interrupted: make(chan struct{}, 1)}
	c.interrupt = c.interruptWrite
	line := bytes.Repeat([]byte("0123456789abcdef"), 1<<18) // 4 MiB
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(r)
		got <- b
	}()
	for range 2 {
		if n, err := c.writeLine(t.Context(), line); err != nil || n != len(line) {
			t.Fatalf("writeLine = %d, %v; want %d, nil", n, err, len(line))
		}
	}
	w.Close()
	if b := <-got; !bytes.Equal(b, append(line, line...)) {
		t.Errorf("the reader got %d bytes; want the line's %d twice", len(b), len(line))
	}
}

func TestCloseAbandonsStuckWrite(t *testing.T) {
	conn, stuck := deafChild(t)
	errc := writeAsync(context.Background(), conn, bigRequest(2, 4<<20))
	proctest.WaitFile(t, stuck)
	closeAbandoning(t, conn, errc)
}

// closeAbandoning closes conn, whose write errc waits for is stuck, and
// checks that Close ends it and the server.
func closeAbandoning(t *testing.T, conn *Conn, errc <-chan error) {
	t.Helper()
	closed := make(chan error, 1)
	go func() { closed <- conn.Close() }()
	if err := wait(t, "Close", closed); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, "a write stuck at Close", errc); !errors.Is(err, mcp.ErrConnectionClosed) {
		t.Errorf("Write = %v, want ErrConnectionClosed", err)
	}
	if !processGone(conn.Pid()) {
		t.Error("server survived Close")
	}
}

// A server that does not read, yet keeps asking: the refusals waiting to be
// written are bounded, and Close abandons them (goleak checks).
func TestRepliesBounded(t *testing.T) {
	var logs proctest.Buffer
	conn := deafChildIn(t, "deaf-asking", "", slog.New(slog.NewTextHandler(&logs, nil)))
	stuck := writeAsync(context.Background(), conn, bigRequest(2, 4<<20))
	refused := func() int {
		return strings.Count(logs.String(), "refused a request from MCP server that could not be decoded")
	}
	proctest.Eventually(t, "every request to be refused", func() bool { return refused() == hostile.DeafAsks })
	if got, want := strings.Count(logs.String(), "too many answers it has not read"), hostile.DeafAsks-maxReplies; got != want {
		t.Errorf("%d refusals dropped, want %d", got, want)
	}
	closeAbandoning(t, conn, stuck)
}
