package mcptool_test

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

	"github.com/mcpbridge/mcpbridge/internal/proctest"

	"github.com/mcpbridge/mcpbridge/internal/hostile"
	"github.com/mcpbridge/mcpbridge/mcptool"
)

// raw starts the test binary as a hostile server in mode over stdio.
func raw(t *testing.T, mode string, opts ...mcptool.Option) *mcptool.Provider {
	t.Helper()
	opts = append([]mcptool.Option{mcptool.WithName("raw"), mcptool.WithEnv(childEnv(hostile.ChildEnv, mode))}, opts...)
	p := mcptool.FromCommand(self(t), nil, opts...)
	t.Cleanup(func() { p.Close() })
	return p
}

func connect(t *testing.T, p *mcptool.Provider) {
	t.Helper()
	if err := p.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestStdioDemo(t *testing.T) {
	p := mcptool.FromCommand(self(t), nil, mcptool.WithEnv(demoEnv()))
	defer p.Close()
	connect(t, p)
	if p.Name() != "mcptool" { // mcptool.test, without its extension
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
	if got := mcptool.FromCommand("npx", []string{"-y", "@modelcontextprotocol/server-memory"}).Name(); got != "server-memory" {
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
	p := mcptool.FromCommand(self(t), []string{"--api-key=sk-top-secret"},
		mcptool.WithEnv(env), mcptool.WithDir(dir), mcptool.WithStderr(&stderr), mcptool.WithLogger(logger))
	defer p.Close()
	connect(t, p)
	ctx := context.Background()
	environ, err := p.CallTool(ctx, "env", nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(environ, "hunter2") {
		t.Fatal("a secret of the parent's environment reached the server")
	}
	if !strings.Contains(environ, "SERVER_TOKEN=given") || !strings.Contains(environ, "PATH=") {
		t.Fatalf("environment lacks the addition or the minimal set:\n%s", environ)
	}
	cwd, err := p.CallTool(ctx, "cwd", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := filepath.EvalSymlinks(dir); cwd != dir && cwd != want {
		t.Fatalf("cwd %q, want %q", cwd, dir)
	}
	eventually(t, "the server's stderr", func() bool {
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
	out, err := p.CallTool(context.Background(), "spawn", nil)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(out)
	if err != nil {
		t.Fatalf("spawn answered %q", out)
	}
	if gone(pid) {
		t.Fatal("the grandchild is not running")
	}
	p.Close()
	eventually(t, "the grandchild to be gone", func() bool { return gone(pid) })
}

func TestStdioDiscoverProbeDoesNotHang(t *testing.T) {
	p := raw(t, "ignore-discover")
	connect(t, p) // would hang until the connect deadline without the probe bound
	if v := p.ProtocolVersion(); v != "2025-06-18" {
		t.Fatalf("protocol %s; want the initialize fallback", v)
	}
	if got, _ := p.CallTool(context.Background(), "echo", map[string]string{"text": "hi"}); got != "hi" {
		t.Fatalf("echo %q", got)
	}
}

func TestConnectDeadline(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pid")
	p := raw(t, "hang", mcptool.WithConnectTimeout(300*time.Millisecond),
		mcptool.WithEnv(map[string]string{hostile.PIDFileEnv: pidfile}))
	err := p.Connect(context.Background())
	var te *mcptool.TransportError
	if !errors.As(err, &te) || !te.Timeout() || te.Server != "raw" {
		t.Fatalf("got %v; want a timeout TransportError", err)
	}
	if p.Connected() {
		t.Fatal("connected")
	}
	// The half-made connection was closed: the server process is gone.
	data, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(data))
	if pid == 0 || !gone(pid) {
		t.Fatalf("server process %d still running after the failed Connect", pid)
	}
}

// A server that exits during the handshake: the error says how it ended
// and quotes its last words on stderr, wherever its stderr goes (nothing
// is written to a nil writer: it means discard).
func TestConnectServerExitsHalfWay(t *testing.T) {
	var stderr proctest.Buffer
	for _, opts := range [][]mcptool.Option{{mcptool.WithStderr(&stderr)}, {mcptool.WithStderr(nil)}} {
		p := raw(t, "exit-at-init", opts...)
		err := p.Connect(context.Background())
		var te *mcptool.TransportError
		if !errors.As(err, &te) || !strings.Contains(err.Error(), `exit status 3; its last words on stderr: "fatal: no configuration"`) {
			t.Fatalf("got %v; want a TransportError saying the server exited with status 3, quoting its stderr", err)
		}
	}
	if got := stderr.String(); got != "fatal: no configuration\n" {
		t.Errorf("the server's stderr got %q", got)
	}
	// goleak (TestMain) checks that nothing of the half-made connection lives on.
}

func TestConnectBadProtocolVersion(t *testing.T) {
	p := raw(t, "bad-version")
	err := p.Connect(context.Background())
	var pe *mcptool.ProtocolError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "1999-01-01") {
		t.Fatalf("got %v; want a ProtocolError naming the version", err)
	}
}

func TestLineLimit(t *testing.T) {
	p := raw(t, "", mcptool.WithMaxMessageSize(4096))
	connect(t, p)
	ctx := context.Background()
	_, err := p.CallTool(ctx, "big", map[string]any{"size": 10000})
	if err == nil || !strings.Contains(err.Error(), "line limit") || !strings.Contains(err.Error(), `tools/call "big"`) {
		t.Fatalf("got %v; want an error about the line limit naming the call", err)
	}
	// The session goes on.
	if got, err := p.CallTool(ctx, "big", map[string]any{"size": 10}); err != nil || got != "aaaaaaaaaa" {
		t.Fatalf("after the over-limit message: %q, %v", got, err)
	}
}

func TestServerDiesMidSession(t *testing.T) {
	p := raw(t, "")
	connect(t, p)
	_, err := p.CallTool(context.Background(), "exit", nil)
	var te *mcptool.TransportError
	if !errors.As(err, &te) || !te.OutcomeUnknown() || te.Retryable() || !strings.Contains(err.Error(), "whether the tool ran is unknown") {
		t.Fatalf("got %v; want a TransportError saying the outcome is unknown", err)
	}
	eventually(t, "the provider to fail", func() bool {
		state, why := p.State()
		return state == mcptool.StateFailed && why != nil
	})
	eventually(t, "the provider to see the connection gone", func() bool { return !p.Connected() })
	_, err = p.CallTool(context.Background(), "echo", nil)
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "exit status 4") {
		t.Fatalf("later call: %v; want a TransportError with the exit status", err)
	}
}

// pipeProvider connects a provider to a hostile server in this process.
func pipeProvider(t *testing.T, mode string, opts ...mcptool.Option) (*mcptool.Provider, *hostile.Server, error) {
	t.Helper()
	s, err := hostile.New(mode)
	if err != nil {
		t.Fatal(err)
	}
	tr, stop := s.Pipe()
	t.Cleanup(stop)
	p := mcptool.FromTransport("piped", tr, opts...)
	t.Cleanup(func() { p.Close() })
	return p, s, p.Connect(context.Background())
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
	var pe *mcptool.ProtocolError
	if !errors.As(err, &pe) || pe.Server != "piped" || !strings.Contains(err.Error(), "repeated") {
		t.Fatalf("repeated cursor: %v", err)
	}
	_, s, err = pipeProvider(t, "endless", mcptool.WithMaxPages(5))
	if !errors.As(err, &pe) || pe.Server != "piped" || !strings.Contains(err.Error(), "more than 5 pages") {
		t.Fatalf("page cap: %v", err)
	}
	if s.Count("tools/list") != 5 {
		t.Fatalf("%d pages requested past the cap of 5", s.Count("tools/list"))
	}
	if _, _, err = pipeProvider(t, "endless", mcptool.WithMaxPages(1)); !strings.Contains(fmt.Sprint(err), "more than 1 page (") {
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
	var pe *mcptool.ProtocolError
	if !errors.As(err, &pe) || pe.Code != -32601 || !strings.Contains(err.Error(), `server "piped": skills/list`) {
		t.Fatalf("JSON-RPC error: %v", err)
	}
}
