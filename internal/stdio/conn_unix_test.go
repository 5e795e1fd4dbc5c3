//go:build unix

package stdio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// testTimeout bounds every wait in these tests, so that a bug shows up as a
// failure rather than a hung test binary. It is never a synchronisation
// device: nothing waits for it to pass.
const testTimeout = 30 * time.Second

// child returns a Command that runs this test binary in the given mode.
func child(t testing.TB, mode string) *Command {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &Command{Path: exe, Env: map[string]string{
		childEnv: mode,
		// A race-enabled child otherwise sleeps a second as it exits.
		"GORACE": "atexit_sleep_ms=0",
	}}
}

func start(t testing.TB, c *Command) *Conn {
	t.Helper()
	conn, err := c.Start(t.Context())
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func read(t testing.TB, conn *Conn) jsonrpc.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	m, err := conn.Read(ctx)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return m
}

func readResponse(t testing.TB, conn *Conn) *jsonrpc.Response {
	t.Helper()
	m := read(t, conn)
	r, ok := m.(*jsonrpc.Response)
	if !ok {
		t.Fatalf("Read: got %T %+v, want a response", m, m)
	}
	return r
}

func readNotification(t testing.TB, conn *Conn, method string) json.RawMessage {
	t.Helper()
	m := read(t, conn)
	r, ok := m.(*jsonrpc.Request)
	if !ok || r.Method != method || r.ID.IsValid() {
		t.Fatalf("Read: got %T %+v, want notification %q", m, m, method)
	}
	return r.Params
}

func write(t testing.TB, conn *Conn, msg jsonrpc.Message) {
	t.Helper()
	if err := conn.Write(t.Context(), msg); err != nil {
		t.Fatalf("Write: %v", err)
	}
}

func request(id any, method string, params string) *jsonrpc.Request {
	if n, ok := id.(int); ok {
		id = float64(n)
	}
	var p json.RawMessage
	if params != "" {
		p = json.RawMessage(params)
	}
	return &jsonrpc.Request{ID: mustID(id), Method: method, Params: p}
}

// call sends a request and expects the very next message to be its answer.
func call(t testing.TB, conn *Conn, id any, method, params string) *jsonrpc.Response {
	t.Helper()
	req := request(id, method, params)
	write(t, conn, req)
	r := readResponse(t, conn)
	if r.ID != req.ID {
		t.Fatalf("response id %v, want %v", r.ID.Raw(), req.ID.Raw())
	}
	return r
}

func wireError(t testing.TB, r *jsonrpc.Response) *jsonrpc.Error {
	t.Helper()
	var we *jsonrpc.Error
	if !errors.As(r.Error, &we) {
		t.Fatalf("response %v: error %v, want a *jsonrpc.Error", r.ID.Raw(), r.Error)
	}
	return we
}

func waitDone(t testing.TB, conn *Conn) {
	t.Helper()
	select {
	case <-conn.Done():
	case <-time.After(testTimeout):
		t.Fatal("server process did not exit")
	}
}

// processGone reports whether pid has exited. A killed orphan may linger
// as a zombie if PID 1 does not reap it, so the state in /proc is what
// counts, not whether kill(pid, 0) succeeds.
func processGone(pid int) bool {
	data, err := os.ReadFile("/proc/" + itoa(pid) + "/stat")
	if err != nil {
		if _, perr := os.Stat("/proc/self/stat"); perr != nil {
			return syscall.Kill(pid, 0) == syscall.ESRCH // no /proc
		}
		return true
	}
	i := bytes.LastIndexByte(data, ')')
	state := bytes.TrimSpace(data[i+1:])[0]
	return state == 'Z' || state == 'X'
}

func itoa(n int) string { return strconv.Itoa(n) }

func grandchildPid(t testing.TB, conn *Conn) int {
	t.Helper()
	var p struct{ Pid int }
	if err := json.Unmarshal(readNotification(t, conn, "grandchild"), &p); err != nil || p.Pid <= 0 {
		t.Fatalf("grandchild notification: %v %+v", err, p)
	}
	return p.Pid
}

func TestMissingExecutable(t *testing.T) {
	for _, path := range []string{"mcpbridge-no-such-server", "/nonexistent/mcpbridge-no-such-server"} {
		c := &Command{Path: path, Args: []string{"--token=hunter2"}}
		conn, err := c.Connect(t.Context())
		if err == nil {
			conn.Close()
			t.Fatalf("Connect(%q) succeeded", path)
		}
		if conn != nil {
			t.Errorf("Connect(%q) returned a non-nil connection %#v with its error", path, conn)
		}
		if !strings.Contains(err.Error(), path) {
			t.Errorf("error %q does not name the command %q", err, path)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("error %q reveals an argument", err)
		}
	}
}

// A whole command line given as the command, a common first mistake, is
// not found: the error says that no shell splits it.
func TestMissingExecutableWithArgumentsInPath(t *testing.T) {
	for _, path := range []string{"mcpbridge-no-such-server --stdio", "npx -y @modelcontextprotocol/server-everything"} {
		_, err := (&Command{Path: path}).Connect(t.Context())
		if err == nil || !strings.Contains(err.Error(), "no shell splits the command: give its arguments as args") {
			t.Errorf("Connect(%q): %v; want it to say that no shell splits the command", path, err)
		}
	}
	_, err := (&Command{Path: "mcpbridge-no-such-server"}).Connect(t.Context())
	if err == nil || strings.Contains(err.Error(), "shell") {
		t.Errorf("a command without spaces: %v; want no word of a shell", err)
	}
}

func TestEnvironment(t *testing.T) {
	t.Setenv("STDIO_TEST_SECRET", "hunter2")
	t.Setenv("HOME", "/home/parent")
	c := child(t, "env")
	c.Env["STDIO_TEST_ADDED"] = "added-value"
	c.Env["HOME"] = "/home/override"
	conn := start(t, c)
	var got struct{ Env []string }
	if err := json.Unmarshal(readNotification(t, conn, "env"), &got); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, kv := range got.Env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	for k, v := range env {
		if strings.Contains(v, "hunter2") {
			t.Errorf("child got the parent's secret in %s", k)
		}
		if !slices.Contains(minimalEnvKeys, k) && c.Env[k] == "" {
			t.Errorf("child got %s, which is neither minimal nor added", k)
		}
	}
	if env["STDIO_TEST_ADDED"] != "added-value" {
		t.Errorf("STDIO_TEST_ADDED = %q, want the Env addition", env["STDIO_TEST_ADDED"])
	}
	if env["HOME"] != "/home/override" {
		t.Errorf("HOME = %q, want the Env override", env["HOME"])
	}
	if env["PATH"] != os.Getenv("PATH") {
		t.Errorf("PATH = %q, want the parent's %q", env["PATH"], os.Getenv("PATH"))
	}
}

func TestDir(t *testing.T) {
	dir := t.TempDir()
	c := child(t, "env")
	c.Dir = dir
	conn := start(t, c)
	var got struct{ Cwd string }
	if err := json.Unmarshal(readNotification(t, conn, "env"), &got); err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(dir)
	if have, _ := filepath.EvalSymlinks(got.Cwd); have != want {
		t.Errorf("child working directory %q, want %q", got.Cwd, dir)
	}
}

func TestStderr(t *testing.T) {
	var stderr proctest.Buffer
	c := child(t, "stderr")
	c.Stderr = &stderr
	conn := start(t, c)
	readNotification(t, conn, "ready")
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	// Close waits for the stderr copier, so everything is in by now.
	if got := stderr.String(); !strings.Contains(got, "stderr-marker from the server") {
		t.Errorf("Stderr got %q", got)
	}
	if got := conn.Stderr(); !slices.Equal(got, []string{"stderr-marker from the server"}) {
		t.Errorf("the tail kept %q", got)
	}
}

// A server that dies: the error says how it ended and quotes its last
// lines on stderr, cleaned, whether or not its stderr goes anywhere.
func TestStderrExplainsAnExit(t *testing.T) {
	conn := start(t, child(t, "dying"))
	_, err := conn.Read(t.Context())
	err = conn.Explain(err)
	var se *ServerError
	if !errors.As(err, &se) || se.Exit == nil || se.Stopped || !se.Ended || !slices.Equal(se.Stderr, []string{"starting", "fatal: API_KEY is not set"}) {
		t.Fatalf("Explain = %#v", err)
	}
	if want := `(server process: exit status 1; its last words on stderr: "starting", "fatal: API_KEY is not set")`; !strings.HasSuffix(err.Error(), want) {
		t.Errorf("Explain = %q, want it to end %q", err, want)
	}
	if !errors.Is(err, io.EOF) {
		t.Errorf("Explain(%v) does not wrap the failure", err)
	}
}

// A server that Close had to signal is stopped: its exit is not why the
// connection failed, and a silent one adds nothing to the failure.
func TestExplainAStoppedServer(t *testing.T) {
	c := child(t, "stubborn")
	c.StopTimeout = 50 * time.Millisecond
	conn := start(t, c)
	readNotification(t, conn, "ready")
	conn.Close()
	failed := errors.New("failed")
	if conn.ExitError() == nil {
		t.Fatal("Close returned before the server exited")
	}
	if err := conn.Explain(failed); err != failed {
		t.Fatalf("Explain = %#v, want the failure itself", err)
	}
}

// A server that exits once Close has closed its stdin, as a server should,
// ended because the host hung up: its exit is not why the connection
// failed, and the failure the host found is returned as it is, not
// explained as the server exiting.
func TestExplainAServerTheHostHungUpOn(t *testing.T) {
	conn := start(t, child(t, "stderr"))
	readNotification(t, conn, "ready")
	conn.Close()
	var se *ServerError
	err := conn.Explain(errors.New("unsupported protocol version"))
	if !errors.As(err, &se) || se.Exit == nil || !se.Stopped || se.Ended {
		t.Fatalf("Explain = %#v, want the exit said to follow the host's hang-up", err)
	}
	if got, want := err.Error(), `unsupported protocol version (its last words on stderr: "stderr-marker from the server")`; got != want {
		t.Errorf("Explain = %q, want %q: nothing of the exit", got, want)
	}
}

// A server that says on stdout, before any JSON-RPC, that it listens on
// an HTTP address serves MCP over HTTP: the connection fails at once,
// not at the connect deadline, and the error says where it listens (no
// query, no 0.0.0.0). A correct stdio server never writes such a line to
// stdout.
func TestAServerListeningOnHTTP(t *testing.T) {
	c := child(t, "http-only")
	c.StopTimeout = 50 * time.Millisecond
	conn := start(t, c)
	_, err := conn.Read(t.Context()) // the test's deadline, were it not failed
	if err == nil || !strings.Contains(err.Error(), "does not speak MCP over stdio") {
		t.Fatalf("Read: %v, want the connection failed", err)
	}
	conn.Close()
	var se *ServerError
	if !errors.As(conn.Explain(err), &se) || se.Listens != "http://127.0.0.1:3001/mcp" {
		t.Fatalf("Explain = %#v, want it to say where the server listens", conn.Explain(err))
	}
}

// Said on stderr, it is no reason to fail: a stdio server may listen for
// an OAuth callback, and answer slowly. But when the server never spoke
// JSON-RPC, an error says where it listens.
func TestAServerSayingOnStderrThatItListens(t *testing.T) {
	conn := start(t, child(t, "callback"))
	if r := call(t, conn, 1, "initialize", `{}`); r.Error != nil {
		t.Fatalf("initialize: %v", r.Error)
	}
	var se *ServerError
	if errors.As(conn.Explain(errors.New("failed")), &se) && se.Listens != "" {
		t.Errorf("a server that spoke JSON-RPC said to listen on %q", se.Listens)
	}

	c := child(t, "http-stderr")
	c.StopTimeout = 50 * time.Millisecond
	conn = start(t, c)
	proctest.Eventually(t, "the server's line on stderr", func() bool { return len(conn.tail.last()) > 0 })
	conn.Close()
	if !errors.As(conn.Explain(errors.New("no answer")), &se) || se.Listens != "http://127.0.0.1:8000" {
		t.Errorf("Explain = %#v, want it to say where the server listens", conn.Explain(errors.New("no answer")))
	}
}

func TestStartLogging(t *testing.T) {
	var logs proctest.Buffer
	c := child(t, "fake")
	c.Args = []string{"--api-key=argsecret"}
	c.Env["TOKEN"] = "envsecret"
	c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	conn := start(t, c)
	call(t, conn, 1, "junk", "")
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	if !strings.Contains(out, "started MCP server") || !strings.Contains(out, "pid="+itoa(conn.Pid())) ||
		!strings.Contains(out, "command="+c.Path) {
		t.Errorf("start not logged with command and pid:\n%s", out)
	}
	for _, secret := range []string{"argsecret", "envsecret", "Starting server"} {
		if strings.Contains(out, secret) {
			t.Errorf("log reveals %q:\n%s", secret, out)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	conn := start(t, child(t, "fake"))
	if conn.SessionID() != "" {
		t.Errorf("SessionID = %q", conn.SessionID())
	}
	// A notification gets no answer; the next call must still line up.
	write(t, conn, &jsonrpc.Request{Method: "notifications/initialized"})
	for _, id := range []any{float64(1), "str-id", float64(0)} {
		r := call(t, conn, id, "tools/call", `{"name": "x",
			"arguments": {"multi": "line"}}`)
		var res struct {
			Method string
			Params map[string]any
		}
		if err := json.Unmarshal(r.Result, &res); err != nil || res.Method != "tools/call" || res.Params["name"] != "x" {
			t.Errorf("id %v: result %s (%v)", id, r.Result, err)
		}
	}
	// A response we write (to a server request) is framed as well.
	write(t, conn, &jsonrpc.Response{ID: request(7, "", "").ID, Result: json.RawMessage(`{"ok":true}`)})
	var got map[string]any
	if err := json.Unmarshal(readNotification(t, conn, "gotResponse"), &got); err != nil ||
		got["id"] != float64(7) || got["jsonrpc"] != "2.0" {
		t.Errorf("server got %v (%v)", got, err)
	}
}

func TestJunkAndBatches(t *testing.T) {
	conn := start(t, child(t, "fake"))
	// Banner, blank lines, a message with neither method nor id, a wrong
	// version and an empty batch are skipped; the answer still arrives.
	if r := call(t, conn, 1, "junk", ""); string(r.Result) != `"after junk"` {
		t.Errorf("result %s", r.Result)
	}
	write(t, conn, request(2, "batch", ""))
	readNotification(t, conn, "one")
	if r := readResponse(t, conn); string(r.Result) != `"two"` {
		t.Errorf("batch response %s", r.Result)
	}
	if r := call(t, conn, 3, "echo", ""); r.Error != nil {
		t.Error(r.Error)
	}
}

// An answer that arrives but cannot be decoded (nested too deep, cut
// short) fails its request at once, saying why; the connection goes on.
func TestUndecodableResponse(t *testing.T) {
	conn := start(t, child(t, "fake"))
	write(t, conn, request(1, "undecodable", ""))
	for _, want := range []string{"exceeded max depth", "unexpected end of JSON input"} {
		r := readResponse(t, conn)
		if e := wireError(t, r); r.ID.Raw() != int64(1) || e.Code != jsonrpc.CodeParseError || !strings.Contains(e.Message, want) {
			t.Errorf("answer %v: %v, want a parse error saying %q", r.ID.Raw(), e, want)
		}
	}
	if r := call(t, conn, 2, "echo", ""); r.Error != nil {
		t.Error(r.Error)
	}
}

func TestOversizedResponse(t *testing.T) {
	for _, tc := range []struct {
		name   string
		id     any
		limit  int
		size   int
		idLast bool
	}{
		{"id first", float64(5), 1024, 5000, false},
		{"id last", float64(6), 1024, 5000, true},
		{"string id last", "req-7", 1024, 5000, true},
		// Longer than bufio's buffer: streamed through it, never held.
		{"beyond the read buffer", float64(8), 100 << 10, 300 << 10, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := child(t, "fake")
			c.MaxLineLength = tc.limit
			conn := start(t, c)
			r := call(t, conn, tc.id, "big", `{"size":`+itoa(tc.size)+`,"idLast":`+map[bool]string{true: "true", false: "false"}[tc.idLast]+`}`)
			we := wireError(t, r)
			if we.Code != jsonrpc.CodeInternalError {
				t.Errorf("code %d, want %d", we.Code, jsonrpc.CodeInternalError)
			}
			if !strings.Contains(we.Message, "exceeds the "+itoa(tc.limit)+"-byte line limit") || !strings.Contains(we.Message, "raise the line limit") {
				t.Errorf("message %q", we.Message)
			}
			// The session goes on.
			if r := call(t, conn, 100, "echo", `{"n":1}`); r.Error != nil {
				t.Errorf("next call: %v", r.Error)
			}
		})
	}
}

func TestLongLineUnderLimit(t *testing.T) {
	// Longer than the read buffer, shorter than the default limit: it is
	// assembled from several buffer fills.
	conn := start(t, child(t, "fake"))
	r := call(t, conn, 1, "big", `{"size":300000}`)
	if r.Error != nil || len(r.Result) < 300000 {
		t.Fatalf("error %v, result of %d bytes", r.Error, len(r.Result))
	}
}

func TestOversizedNotification(t *testing.T) {
	var logs proctest.Buffer
	c := child(t, "fake")
	c.MaxLineLength = 1024
	c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	conn := start(t, c)
	if r := call(t, conn, 1, "bignote", `{"size":5000}`); string(r.Result) != `"after bignote"` {
		t.Errorf("result %s", r.Result)
	}
	if out := logs.String(); !strings.Contains(out, "level=WARN") || !strings.Contains(out, "bytes=5") {
		t.Errorf("no warning logged:\n%s", out)
	}
	if strings.Contains(logs.String(), "yyyy") {
		t.Error("log reveals the message")
	}
}

func TestOversizedServerRequest(t *testing.T) {
	c := child(t, "fake")
	c.MaxLineLength = 1024
	conn := start(t, c)
	if r := call(t, conn, 1, "bigrequest", `{"size":5000}`); string(r.Result) != `"after bigrequest"` {
		t.Errorf("result %s", r.Result)
	}
	// Not passed on as a response (its id is the server's), but refused
	// to the server, which reports what it got.
	var got struct {
		ID    string
		Error jsonrpc.Error
	}
	if err := json.Unmarshal(readNotification(t, conn, "gotResponse"), &got); err != nil {
		t.Fatal(err)
	}
	if got.ID != "srv-1" || got.Error.Code != jsonrpc.CodeInternalError || !strings.Contains(got.Error.Message, "line limit") {
		t.Errorf("server got %+v", got)
	}
}

func TestProbeTimeout(t *testing.T) {
	c := child(t, "fake")
	c.ProbeTimeout = 50 * time.Millisecond
	conn := start(t, c)
	write(t, conn, request(1, methodDiscover, `{}`))
	r := readResponse(t, conn)
	if r.ID != request(1, "", "").ID {
		t.Fatalf("synthetic response for %v", r.ID.Raw())
	}
	if we := wireError(t, r); we.Code != jsonrpc.CodeMethodNotFound || !strings.Contains(we.Message, methodDiscover) {
		t.Errorf("synthetic error %+v", we)
	}
	// Now the server answers the probe after all, then "release": the late
	// answer must not reach Read.
	if r := call(t, conn, 2, "release", ""); string(r.Result) != `"released"` {
		t.Errorf("result %s", r.Result)
	}
}

// A server that answers no ping either is still given initialize, once
// the longer bound for a silent server passes.
func TestProbeSilentServer(t *testing.T) {
	c := child(t, "silent")
	c.ProbeTimeout = 10 * time.Millisecond
	conn := start(t, c)
	write(t, conn, request(1, methodDiscover, `{}`))
	r := readResponse(t, conn)
	if we := wireError(t, r); r.ID != request(1, "", "").ID || we.Code != jsonrpc.CodeMethodNotFound || !strings.Contains(we.Message, "neither") {
		t.Errorf("synthetic answer %v %+v", r.ID.Raw(), we)
	}
}

// The probe's bound counts from when the server reads, not from its start:
// a server slower to start than the bound (npx on a loaded machine) still
// answers server/discover, and is spoken to in 2026-07-28.
func TestProbeWaitsForASlowStart(t *testing.T) {
	c := child(t, "slow-sdk")
	c.ProbeTimeout = 100 * time.Millisecond // a fifth of the server's start
	_, cs := clientOf(t, c)
	if v := cs.InitializeResult().ProtocolVersion; v < "2026-07-28" {
		t.Errorf("protocol %s: the probe gave up on a server still starting", v)
	}
}

// A negative probe timeout is no bound: no probe is armed, and the
// server's late answer is the probe's. A negative stop timeout is refused.
func TestNegativeTimeouts(t *testing.T) {
	c := child(t, "fake")
	c.ProbeTimeout = -1
	conn := start(t, c)
	write(t, conn, request(1, methodDiscover, `{}`))
	conn.mu.Lock()
	armed := len(conn.probes)
	conn.mu.Unlock()
	if armed != 0 {
		t.Fatalf("%d probes armed without a bound", armed)
	}
	write(t, conn, request(2, "release", ""))
	if r := readResponse(t, conn); r.ID != request(1, "", "").ID || r.Error != nil {
		t.Fatalf("got %v %v, want the server's answer to the probe", r.ID.Raw(), r.Error)
	}
	c = child(t, "fake")
	c.StopTimeout = -1
	if _, err := c.Start(t.Context()); err == nil || !strings.Contains(err.Error(), "StopTimeout") {
		t.Fatalf("Start: %v; want StopTimeout refused", err)
	}
}

func TestProbeAnswered(t *testing.T) {
	c := child(t, "fake")
	c.ProbeTimeout = time.Hour
	conn := start(t, c)
	write(t, conn, request(1, methodDiscover, `{}`))
	write(t, conn, request(2, "release", ""))
	if r := readResponse(t, conn); r.ID != request(1, "", "").ID || r.Error != nil {
		t.Fatalf("got %v %v, want the real answer to the probe", r.ID.Raw(), r.Error)
	}
	readResponse(t, conn)
	conn.mu.Lock()
	defer conn.mu.Unlock()
	if len(conn.probes) != 0 {
		t.Errorf("probe still armed after its answer: %v", conn.probes)
	}
}

// clientOf connects a go-sdk client to the server c starts; the session
// closes with the test.
func clientOf(t *testing.T, c *Command) (context.Context, *mcp.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return ctx, cs
}

func TestClientSDKServer(t *testing.T) {
	c := child(t, "sdk")
	c.ProbeTimeout = testTimeout // the real server answers the probe
	ctx, cs := clientOf(t, c)
	if v := cs.InitializeResult().ProtocolVersion; v < "2026-07-28" {
		t.Errorf("protocol %s: want server/discover to have been used", v)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != "hi" {
		t.Errorf("CallTool = %+v", res.Content)
	}
	if err := cs.Close(); err != nil {
		t.Error(err)
	}
}

func TestClientLegacyServer(t *testing.T) {
	c := child(t, "fake")
	c.ProbeTimeout = 100 * time.Millisecond
	ctx, cs := clientOf(t, c)
	if v := cs.InitializeResult().ProtocolVersion; v != "2025-06-18" {
		t.Errorf("protocol %s, want the legacy server's 2025-06-18", v)
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 1 || res.Tools[0].Name != "legacy_tool" {
		t.Errorf("ListTools = %+v", res.Tools)
	}
	if err := cs.Close(); err != nil {
		t.Error(err)
	}
}

func TestServerExitEOF(t *testing.T) {
	conn := start(t, child(t, "fake"))
	write(t, conn, request(1, "exit", `{"code":7}`))
	_, err := conn.Read(t.Context())
	if !errors.Is(err, io.EOF) || !strings.Contains(err.Error(), "exited (exit status 7)") {
		t.Fatalf("Read error %v, want io.EOF saying exit status 7", err)
	}
	var ee *exec.ExitError
	if !errors.As(conn.ExitError(), &ee) || ee.ExitCode() != 7 {
		t.Errorf("ExitError = %v", conn.ExitError())
	}
	if err := conn.Write(t.Context(), request(2, "echo", "")); err == nil {
		t.Error("Write to an exited server succeeded")
	}
}

func TestCloseStopsGroup(t *testing.T) {
	c := child(t, "group")
	conn := start(t, c)
	gpid := grandchildPid(t, conn)
	if processGone(gpid) {
		t.Fatal("grandchild gone before Close")
	}
	if conn.ExitError() != nil {
		t.Errorf("ExitError = %v while running", conn.ExitError())
	}
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	if !processGone(gpid) {
		t.Errorf("grandchild %d (ignoring SIGTERM) survived Close", gpid)
	}
	if !processGone(conn.Pid()) {
		t.Errorf("server %d survived Close", conn.Pid())
	}
	// It exited by itself on stdin EOF.
	if err := conn.ExitError(); err == nil || err.Error() != "exit status 0" {
		t.Errorf("ExitError = %v", err)
	}
}

func TestExitedServerGroupStopped(t *testing.T) {
	c := child(t, "orphan")
	conn := start(t, c)
	gpid := grandchildPid(t, conn)
	// The grandchild holds stdout open: EOF comes only once the group is
	// cleaned up after the server's exit, without any Close.
	_, err := conn.Read(t.Context())
	if !errors.Is(err, io.EOF) || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("Read error %v, want io.EOF saying exit status 3", err)
	}
	waitDone(t, conn)
	if !processGone(gpid) {
		t.Errorf("grandchild %d survived its server's exit", gpid)
	}
}

func TestEscapedGrandchildHoldingStdout(t *testing.T) {
	c := child(t, "setsid")
	c.StopTimeout = 100 * time.Millisecond
	conn := start(t, c)
	gpid := grandchildPid(t, conn)
	// In its own session, out of reach of group signals: the test must
	// kill it.
	t.Cleanup(func() { syscall.Kill(gpid, syscall.SIGKILL) })
	_, err := conn.Read(t.Context())
	if !errors.Is(err, io.EOF) || !strings.Contains(err.Error(), "exit status 4") {
		t.Fatalf("Read error %v, want io.EOF saying exit status 4", err)
	}
}

func TestCloseStubborn(t *testing.T) {
	c := child(t, "stubborn")
	c.StopTimeout = 50 * time.Millisecond
	conn := start(t, c)
	readNotification(t, conn, "ready") // SIGTERM is ignored from here on
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-conn.Done():
	default:
		t.Fatal("Done not closed after Close returned")
	}
	if err := conn.ExitError(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("ExitError = %v, want killed", err)
	}
}

func TestCloseConcurrent(t *testing.T) {
	conn := start(t, child(t, "fake"))
	readErr := make(chan error, 1)
	go func() {
		for {
			if _, err := conn.Read(context.Background()); err != nil {
				readErr <- err
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for j := 0; ; j++ {
				if conn.Write(context.Background(), request(float64(i*1000+j), "echo", `{}`)) != nil {
					return
				}
			}
		})
	}
	closeErrs := make(chan error, 3)
	for range 3 {
		go func() { closeErrs <- conn.Close() }()
	}
	for range 3 {
		if err := <-closeErrs; err != nil {
			t.Errorf("Close: %v", err)
		}
	}
	wg.Wait()
	if err := <-readErr; !errors.Is(err, mcp.ErrConnectionClosed) {
		t.Errorf("blocked Read returned %v, want ErrConnectionClosed", err)
	}
	if err := conn.Write(t.Context(), request(1, "echo", "")); !errors.Is(err, mcp.ErrConnectionClosed) {
		t.Errorf("Write after Close: %v", err)
	}
	if _, err := conn.Read(t.Context()); !errors.Is(err, mcp.ErrConnectionClosed) {
		t.Errorf("Read after Close: %v", err)
	}
}

func TestReadContext(t *testing.T) {
	conn := start(t, child(t, "fake"))
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() {
		_, err := conn.Read(ctx)
		errc <- err
	}()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("Read = %v, want context.Canceled", err)
	}
	// The connection is still usable.
	call(t, conn, 1, "echo", "")
}

func BenchmarkRoundTrip(b *testing.B) {
	conn := start(b, child(b, "fake"))
	params := json.RawMessage(`{"name":"search","arguments":{"query":"go"}}`)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		id, _ := jsonrpc.MakeID(float64(i))
		if err := conn.Write(ctx, &jsonrpc.Request{ID: id, Method: "tools/call", Params: params}); err != nil {
			b.Fatal(err)
		}
		if _, err := conn.Read(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// An answer the function given to Answer takes goes no further: Read
// returns the messages after it, and the answers it leaves.
func TestAnswerTakesAnAnswerFromRead(t *testing.T) {
	conn := start(t, child(t, "fake"))
	taken := make(chan *jsonrpc.Response, 1)
	conn.Answer(func(r *jsonrpc.Response) bool {
		if r.ID.Raw() != "ours" {
			return false
		}
		taken <- r
		return true
	})
	write(t, conn, request("ours", "tools/call", `{"name":"x"}`))
	if r := call(t, conn, 2, "tools/call", `{"name":"y"}`); r.Error != nil {
		t.Fatalf("the answer left to Read: %+v", r)
	}
	r := <-taken
	var res struct{ Params map[string]any }
	if err := json.Unmarshal(r.Result, &res); err != nil || res.Params["name"] != "x" {
		t.Fatalf("the answer taken: %s (%v)", r.Result, err)
	}
}
