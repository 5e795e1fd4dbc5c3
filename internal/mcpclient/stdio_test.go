package mcpclient_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
	"github.com/mcpbridge/mcpbridge/tool"
)

func TestStdioDemo(t *testing.T) {
	p := mcpclient.FromCommand(self(t), nil, mcpclient.WithEnv(demoEnv()))
	defer p.Close()
	connect(t, p)
	if p.Name() != "mcpclient" { // mcpclient.test, without its extension
		t.Errorf("default name %q", p.Name())
	}
	h := p.Handler()
	call(t, h, "add_note", `{"title":"over stdio","body":"b"}`)
	if got := call(t, h, "search_notes", `{"query":"stdio"}`).Text(); !strings.Contains(got, "over stdio") {
		t.Fatalf("search: %q", got)
	}
	inServersOrder(t, p)
	// The 2026-07-28 handshake works over our stdio connection.
	if v := p.ProtocolVersion(); v != "2026-07-28" {
		t.Errorf("protocol %s", v)
	}
}

// A command's default name is what it runs, not the launcher (the rule is
// stdio.ServerName's, tested there).
func TestStdioDefaultName(t *testing.T) {
	if got := mcpclient.FromCommand("npx", []string{"-y", "@modelcontextprotocol/server-memory"}).Name(); got != "server-memory" {
		t.Errorf("npx -y @modelcontextprotocol/server-memory is named %q", got)
	}
}

func TestStdioEnvironmentDirStderrAndLogging(t *testing.T) {
	t.Setenv("MCPTOOL_PARENT_SECRET", "hunter2")
	dir := t.TempDir()
	var stderr proctest.Buffer
	var logs proctest.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	env := childEnv(hostile.ChildEnv, "stderr", "SERVER_TOKEN", "given")
	p := mcpclient.FromCommand(self(t), []string{"--api-key=sk-top-secret"},
		mcpclient.WithEnv(env), mcpclient.WithDir(dir), mcpclient.WithStderr(&stderr), mcpclient.WithLogger(logger))
	defer p.Close()
	connect(t, p)
	ctx := context.Background()
	environ, err := callText(ctx, p, "env", nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(environ, "hunter2") {
		t.Fatal("a secret of the parent's environment reached the server")
	}
	if !strings.Contains(environ, "SERVER_TOKEN=given") || !strings.Contains(environ, "PATH=") {
		t.Fatalf("environment lacks the addition or the minimal set:\n%s", environ)
	}
	cwd, err := callText(ctx, p, "cwd", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := filepath.EvalSymlinks(dir); cwd != dir && cwd != want {
		t.Fatalf("cwd %q, want %q", cwd, dir)
	}
	proctest.Eventually(t, "the server's stderr", func() bool {
		return strings.Contains(stderr.String(), "hello from the server's stderr")
	})
	p.Close()
	if out := logs.String(); strings.Contains(out, "sk-top-secret") || strings.Contains(out, "given") {
		t.Fatalf("arguments or environment logged:\n%s", out)
	} else if !strings.Contains(out, filepath.Base(self(t))) {
		t.Fatalf("the command was not logged:\n%s", out)
	}
}

func TestStdioCloseStopsGrandchildren(t *testing.T) {
	p := raw(t, "")
	connect(t, p)
	out, err := callText(context.Background(), p, "spawn", nil)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(out)
	if err != nil {
		t.Fatalf("spawn answered %q", out)
	}
	if !proctest.Alive(pid) {
		t.Fatal("the grandchild is not running")
	}
	p.Close()
	proctest.Eventually(t, "the grandchild to be gone", func() bool { return !proctest.Alive(pid) })
}

func TestStdioDiscoverProbeDoesNotHang(t *testing.T) {
	p := raw(t, "ignore-discover")
	connect(t, p) // would hang until the connect deadline without the probe bound
	if v := p.ProtocolVersion(); v != "2025-06-18" {
		t.Fatalf("protocol %s; want the initialize fallback", v)
	}
	if got, _ := callText(context.Background(), p, "echo", map[string]string{"text": "hi"}); got != "hi" {
		t.Fatalf("echo %q", got)
	}
}

func TestConnectDeadline(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pid")
	p := raw(t, "hang", mcpclient.WithConnectTimeout(300*time.Millisecond),
		mcpclient.WithEnv(map[string]string{hostile.PIDFileEnv: pidfile}))
	err := p.Connect(context.Background())
	var te *mcpclient.TransportError
	if !errors.As(err, &te) || !te.Timeout() || te.Server != "raw" {
		t.Fatalf("got %v; want a timeout TransportError", err)
	}
	if st, _ := p.State(); st == mcpclient.StateReady {
		t.Fatal("connected")
	}
	// The half-made connection was closed: the server process is gone.
	data, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(data))
	if pid == 0 || proctest.Alive(pid) {
		t.Fatalf("server process %d still running after the failed Connect", pid)
	}
}

// A server that exits during the handshake: the error says how it ended
// and quotes its last words on stderr, wherever its stderr goes (nothing
// is written to a nil writer: it means discard).
func TestConnectServerExitsHalfWay(t *testing.T) {
	var stderr proctest.Buffer
	for _, opts := range [][]mcpclient.Option{{mcpclient.WithStderr(&stderr)}, {mcpclient.WithStderr(nil)}} {
		p := raw(t, "exit-at-init", opts...)
		err := p.Connect(context.Background())
		var te *mcpclient.TransportError
		if !errors.As(err, &te) || !strings.Contains(err.Error(), `exit status 3; its last words on stderr: "fatal: no configuration"`) {
			t.Fatalf("got %v; want a TransportError saying the server exited with status 3, quoting its stderr", err)
		}
	}
	if got := stderr.String(); got != "fatal: no configuration\n" {
		t.Errorf("the server's stderr got %q", got)
	}
	// goleak (TestMain) checks that nothing of the half-made connection lives on.
}

// A command that cannot be started (not there, not executable) is a
// failure no retry mends: tool.Fatal, not tool.Retryable. syscall.Errno is a
// net.Error, which counted ENOENT and EACCES as network trouble.
func TestConnectMissingCommandIsFatal(t *testing.T) {
	notExecutable := filepath.Join(t.TempDir(), "server")
	if err := os.WriteFile(notExecutable, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, command := range []string{"/nonexistent/mcpbridge-no-such-server", "mcpbridge-no-such-server", notExecutable} {
		err := mcpclient.FromCommand(command, nil).Connect(context.Background())
		var te *mcpclient.TransportError
		if !errors.As(err, &te) || tool.Retryable(err) || !tool.Fatal(err) {
			t.Errorf("FromCommand(%q): got %v (retryable %v, fatal %v); want a TransportError, fatal and not retryable",
				command, err, tool.Retryable(err), tool.Fatal(err))
		}
	}
}

// A call the caller's own context ends is not the server's failure: the
// error quotes nothing the running server wrote (a banner on stderr read as
// the reason), and still says the context ended.
func TestCallerCancelQuotesNoStderr(t *testing.T) {
	p := raw(t, "stderr")
	connect(t, p)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := p.Handler().Call(ctx, "echo", []byte(`{"text": "x"}`))
	if !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "stderr") {
		t.Errorf("got %v; want context.Canceled without the server's stderr", err)
	}
}

func TestConnectBadProtocolVersion(t *testing.T) {
	p := raw(t, "bad-version")
	err := p.Connect(context.Background())
	var pe *mcpclient.ProtocolError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "1999-01-01") {
		t.Fatalf("got %v; want a ProtocolError naming the version", err)
	}
}

// A server that breaks the protocol fails as the provider found it: the
// provider hangs up, and the server's exit as its stdin closes is no part
// of the error.
func TestConnectFailsAsTheHostFound(t *testing.T) {
	for _, mode := range []string{"bad-version", "cursor-loop", "endless"} {
		err := raw(t, mode).Connect(context.Background())
		var pe *mcpclient.ProtocolError
		if !errors.As(err, &pe) || strings.Contains(err.Error(), "exit status") {
			t.Errorf("%s: got %v; want a ProtocolError that says nothing of the exit", mode, err)
		}
	}
}

func TestLineLimit(t *testing.T) {
	p := raw(t, "", mcpclient.WithMaxMessageSize(4096))
	connect(t, p)
	ctx := context.Background()
	_, err := callText(ctx, p, "big", map[string]any{"size": 10000})
	if err == nil || !strings.Contains(err.Error(), "line limit") || !strings.Contains(err.Error(), `tools/call "big"`) {
		t.Fatalf("got %v; want an error about the line limit naming the call", err)
	}
	// The session goes on.
	if got, err := callText(ctx, p, "big", map[string]any{"size": 10}); err != nil || got != "aaaaaaaaaa" {
		t.Fatalf("after the over-limit message: %q, %v", got, err)
	}
}

func TestServerDiesMidSession(t *testing.T) {
	p := raw(t, "")
	connect(t, p)
	_, err := callText(context.Background(), p, "exit", nil)
	var te *mcpclient.TransportError
	if !errors.As(err, &te) || !te.OutcomeUnknown() || te.Retryable() || !strings.Contains(err.Error(), "whether the tool ran is unknown") {
		t.Fatalf("got %v; want a TransportError saying the outcome is unknown", err)
	}
	proctest.Eventually(t, "the provider to fail", func() bool {
		state, why := p.State()
		return state == mcpclient.StateFailed && why != nil
	})
	_, err = callText(context.Background(), p, "echo", nil)
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "exit status 4") {
		t.Fatalf("later call: %v; want a TransportError with the exit status", err)
	}
}

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
func deafServer(t *testing.T, opts ...mcpclient.Option) (p *mcpclient.Provider, stuck string, pid func() int) {
	t.Helper()
	dir := t.TempDir()
	pidfile, stuck := filepath.Join(dir, "pid"), filepath.Join(dir, "stuck")
	opts = append(opts, mcpclient.WithEnv(map[string]string{hostile.PIDFileEnv: pidfile, hostile.StuckFileEnv: stuck}))
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

// closeWithin closes p, failing the test if that hangs, and checks that the
// server process is gone.
func closeWithin(t *testing.T, p *mcpclient.Provider, pid int) {
	t.Helper()
	closed := make(chan error, 1)
	go func() { closed <- p.Close() }()
	if err := within(t, "Close", closed); err != nil {
		t.Errorf("Close: %v", err)
	}
	if pid == 0 || proctest.Alive(pid) {
		t.Errorf("server process %d still running after Close", pid)
	}
}

// bigText is an argument larger than a pipe holds, so that writing it to a
// server that does not read blocks.
var bigText = map[string]any{"text": strings.Repeat("a", 4<<20)}

func TestStdioStuckWriteFailsAtCallTimeout(t *testing.T) {
	p, _, pid := deafServer(t, mcpclient.WithCallTimeout(300*time.Millisecond))
	errc := make(chan error, 1)
	go func() {
		_, err := callText(context.Background(), p, "echo", bigText)
		errc <- err
	}()
	err := within(t, "a call whose write is stuck", errc)
	var te *mcpclient.TransportError
	if !errors.As(err, &te) || !te.Timeout() || te.Server != "raw" || te.Op != `tools/call "echo"` {
		t.Fatalf("got %v; want a timeout TransportError naming server and tool", err)
	}
	closeWithin(t, p, pid())
}

func TestStdioStuckWriteFailsWithContext(t *testing.T) {
	p, stuck, pid := deafServer(t, mcpclient.WithCallTimeout(-1))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := callText(ctx, p, "echo", bigText)
		errc <- err
	}()
	proctest.WaitFile(t, stuck)
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
	p, stuck, pid := deafServer(t, mcpclient.WithCallTimeout(-1), mcpclient.WithRequestTimeout(-1))
	const calls = 8
	errc := make(chan error, calls)
	for range calls {
		go func() {
			_, err := callText(context.Background(), p, "echo", map[string]any{"text": strings.Repeat("b", 256<<10)})
			errc <- err
		}()
	}
	proctest.WaitFile(t, stuck)
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
	if got, err := callText(context.Background(), p, "echo", map[string]any{"text": "hi"}); err != nil || got != "hi" {
		t.Fatalf("echo: %q, %v", got, err)
	}
}

// A server that writes something else than JSON-RPC, and nothing more, is
// named with what it wrote, cut to one safe line, when the connect ends.
func TestStdioNotJSONSaysWhatTheServerWrote(t *testing.T) {
	var logs proctest.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p := raw(t, "not-json", mcpclient.WithLogger(logger))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- p.Connect(ctx) }()
	// Ended by the caller once both lines are in: a connect deadline would
	// race the server's start.
	proctest.Eventually(t, "the server's two lines", func() bool {
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
	p := raw(t, "flood", mcpclient.WithConnectTimeout(time.Hour))
	errc := make(chan error, 1)
	go func() { errc <- p.Connect(context.Background()) }()
	err := within(t, "Connect to a server flooding stdout", errc)
	var te *mcpclient.TransportError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "not JSON-RPC") || !strings.Contains(err.Error(), hostile.Banner) {
		t.Fatalf("got %v; want a TransportError saying what the server wrote", err)
	}
}

func TestPagination(t *testing.T) {
	p, s, err := pipeProvider(t, "pages")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.ToolNames(), ","); got != "tool_,tool_p2,tool_p3" {
		t.Fatalf("tools %s", got)
	}
	if s.Count("tools/list") != 3 {
		t.Fatalf("%d pages requested", s.Count("tools/list"))
	}
	_, _, err = pipeProvider(t, "cursor-loop")
	var pe *mcpclient.ProtocolError
	if !errors.As(err, &pe) || pe.Server != "piped" || !strings.Contains(err.Error(), "repeated") {
		t.Fatalf("repeated cursor: %v", err)
	}
	_, s, err = pipeProvider(t, "endless", mcpclient.WithMaxPages(5))
	if !errors.As(err, &pe) || pe.Server != "piped" || !strings.Contains(err.Error(), "more than 5 pages") {
		t.Fatalf("page cap: %v", err)
	}
	if s.Count("tools/list") != 5 {
		t.Fatalf("%d pages requested past the cap of 5", s.Count("tools/list"))
	}
	if _, _, err = pipeProvider(t, "endless", mcpclient.WithMaxPages(1)); !strings.Contains(fmt.Sprint(err), "more than 1 page (") {
		t.Fatalf("page cap of 1: %v", err)
	}
}

func TestRawRequest(t *testing.T) {
	p, _, err := pipeProvider(t, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	out, err := p.Request(ctx, "skills/list", map[string]any{"cursor": "c1"})
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"skills":[{"name":"cooking"}],"zeta":1,"alpha":2}` {
		t.Fatalf("raw result %s; want it as the server sent it", out)
	}
	if _, err := p.Request(ctx, "ping", nil); err != nil {
		t.Fatalf("ping: %v", err)
	}
	tools, err := p.Request(ctx, "tools/list", nil)
	if err != nil || !strings.Contains(string(tools), `"echo"`) {
		t.Fatalf("tools/list: %s, %v", tools, err)
	}
	if ext := p.ServerExtensions(); ext["io.modelcontextprotocol/skills"] == nil {
		t.Fatalf("extensions %v", ext)
	}
	p2, _, err := pipeProvider(t, "no-skills")
	if err != nil {
		t.Fatal(err)
	}
	_, err = p2.Request(ctx, "skills/list", nil)
	var pe *mcpclient.ProtocolError
	if !errors.As(err, &pe) || pe.Code != -32601 || !strings.Contains(err.Error(), `server "piped": skills/list`) {
		t.Fatalf("JSON-RPC error: %v", err)
	}
}

// A running server's JSON-RPC error is its answer, said alone: what it
// wrote to stderr as it started is not why, and quoting it misleads.
func TestStdioAnsweredErrorQuotesNoStderr(t *testing.T) {
	p := raw(t, "stderr")
	connect(t, p)
	_, err := p.Request(context.Background(), "prompts/list", nil)
	var pe *mcpclient.ProtocolError
	if !errors.As(err, &pe) || pe.Code != -32601 {
		t.Fatalf("prompts/list: %v, want the server's JSON-RPC error", err)
	}
	if strings.Contains(err.Error(), "stderr") {
		t.Errorf("the error quotes the server's stderr: %v", err)
	}
}

// A large result over stdio costs memory in proportion to its size, as
// over HTTP (TestHTTPLargeResultInProportion): the line is gathered once
// and decoded in place, and the call past go-sdk decodes its text once.
func TestStdioLargeResultInProportion(t *testing.T) {
	const size = 4 << 20
	p := raw(t, "")
	connect(t, p)
	ctx := context.Background()
	call := func() {
		res, err := p.CallToolResult(ctx, "big", map[string]any{"size": size})
		if err != nil || len(res.Content) != 1 || len(res.Content[0].(*mcp.TextContent).Text) != size {
			t.Fatalf("the big call: %v", err)
		}
	}
	call() // buffers made
	grew := allocated(call)
	t.Logf("a result of %d bytes allocated %.1f times its size", size, float64(grew)/size)
	// Twice: the line read, and the text decoded from it; a copy more
	// (the line cloned before it is decoded, say) passes 2.75.
	if grew > 11*size/4 {
		t.Errorf("a result of %d bytes allocated %d bytes; want at most 2.75 times", size, grew)
	}
}
