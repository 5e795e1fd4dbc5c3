package mcptool_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpbridge/mcpbridge/internal/demo"
)

// The test binary doubles as the servers the tests start as subprocesses:
// the demo server, or a hand-written JSON-RPC server (rawServer) in the mode
// named by rawEnv.
const rawEnv = "MCPTOOL_TEST_RAW"

func TestMain(m *testing.M) {
	demo.ServeIfChild()
	if mode := os.Getenv(rawEnv); mode != "" {
		os.Exit(runRawChild(mode))
	}
	goleak.VerifyTestMain(m)
}

// childEnv is the environment a test child needs: the mode, and no 1 s
// pause at exit under the race detector.
func childEnv(kv ...string) map[string]string {
	env := map[string]string{"GORACE": "atexit_sleep_ms=0"}
	for i := 0; i+1 < len(kv); i += 2 {
		env[kv[i]] = kv[i+1]
	}
	return env
}

func self(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// demoEnv starts the test binary as the demo server.
func demoEnv() map[string]string { return childEnv(demo.ChildEnv, "stdio") }

// A rawServer speaks newline-delimited JSON-RPC by hand, so tests can make a
// server misbehave in ways go-sdk's server never would.
type rawServer struct {
	mode string

	mu     sync.Mutex
	counts map[string]int
}

type rawMessage struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

func (s *rawServer) count(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[method]
}

// serve answers requests from r on w until r ends.
func (s *rawServer) serve(r io.Reader, w io.Writer) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var wmu sync.Mutex
	write := func(s string) {
		wmu.Lock()
		defer wmu.Unlock()
		io.WriteString(w, s+"\n")
	}
	for sc.Scan() {
		var msg rawMessage
		if json.Unmarshal(sc.Bytes(), &msg) != nil {
			continue
		}
		s.mu.Lock()
		if s.counts == nil {
			s.counts = map[string]int{}
		}
		s.counts[msg.Method]++
		s.mu.Unlock()
		if len(msg.ID) == 0 {
			continue // a notification
		}
		if reply, ok := s.answer(msg); ok {
			write(reply)
		}
	}
	return sc.Err()
}

func result(id json.RawMessage, v any) string {
	data, _ := json.Marshal(v)
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, data)
}

func rpcError(id json.RawMessage, code int, msg string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, id, code, msg)
}

var echoTool = map[string]any{
	"name":        "echo",
	"description": "Echoes its text.",
	"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}},
}

// flakyTool is read-only: safe to send again. Its first call kills the
// server (see "flaky" below).
var flakyTool = map[string]any{
	"name":        "flaky",
	"inputSchema": map[string]any{"type": "object"},
	"annotations": map[string]any{"readOnlyHint": true},
}

func (s *rawServer) answer(msg rawMessage) (string, bool) {
	switch msg.Method {
	case "server/discover":
		if s.mode == "ignore-discover" || s.mode == "hang" {
			return "", false
		}
		return rpcError(msg.ID, -32601, "method not found"), true
	case "initialize":
		switch s.mode {
		case "hang":
			return "", false
		case "exit-at-init":
			fmt.Fprintln(os.Stderr, "fatal: no configuration")
			os.Exit(3)
		}
		version := "2025-06-18"
		if s.mode == "bad-version" {
			version = "1999-01-01"
		}
		return result(msg.ID, map[string]any{
			"protocolVersion": version,
			"capabilities":    map[string]any{"tools": map[string]any{}, "extensions": map[string]any{"io.modelcontextprotocol/skills": map[string]any{}}},
			"serverInfo":      map[string]any{"name": "raw", "version": "1.0"},
		}), true
	case "tools/list":
		var p struct{ Cursor string }
		json.Unmarshal(msg.Params, &p)
		switch s.mode {
		case "cursor-loop":
			return result(msg.ID, map[string]any{"tools": []any{echoTool}, "nextCursor": "again"}), true
		case "endless":
			n := len(p.Cursor)
			return result(msg.ID, map[string]any{"tools": []any{}, "nextCursor": strings.Repeat("x", n+1)}), true
		case "pages":
			page := map[string]string{"": "p2", "p2": "p3", "p3": ""}[p.Cursor]
			tool := map[string]any{"name": "tool_" + p.Cursor, "inputSchema": map[string]any{"type": "object"}}
			return result(msg.ID, map[string]any{"tools": []any{tool}, "nextCursor": page}), true
		}
		return result(msg.ID, map[string]any{"tools": []any{echoTool, flakyTool}}), true
	case "tools/call":
		var p struct {
			Name      string
			Arguments map[string]any
		}
		json.Unmarshal(msg.Params, &p)
		text := fmt.Sprint(p.Arguments["text"])
		switch p.Name {
		case "big":
			// The id last, as the TypeScript SDK writes it.
			n, _ := p.Arguments["size"].(float64)
			return fmt.Sprintf(`{"result":{"content":[{"type":"text","text":"%s"}]},"jsonrpc":"2.0","id":%s}`, strings.Repeat("a", int(n)), msg.ID), true
		case "env":
			text = strings.Join(os.Environ(), "\n")
		case "cwd":
			text, _ = os.Getwd()
		case "spawn":
			cmd := exec.Command("sleep", "300")
			if err := cmd.Start(); err != nil {
				return rpcError(msg.ID, -32603, err.Error()), true
			}
			text = fmt.Sprint(cmd.Process.Pid)
		case "exit":
			os.Exit(4)
		case "flaky":
			// The first call dies mid-call; the next server answers.
			marker := os.Getenv("MCPTOOL_MARKER")
			if _, err := os.Stat(marker); err != nil {
				os.WriteFile(marker, nil, 0o600)
				os.Exit(5)
			}
			text = "answered on the second try"
		}
		return result(msg.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}), true
	case "skills/list":
		if s.mode == "no-skills" {
			return rpcError(msg.ID, -32601, "skills/list not supported"), true
		}
		return result(msg.ID, json.RawMessage(`{"skills":[{"name":"cooking"}],"zeta":1,"alpha":2}`)), true
	case "ping":
		return result(msg.ID, map[string]any{}), true
	}
	return rpcError(msg.ID, -32601, "method not found"), true
}

func runRawChild(mode string) int {
	if f := os.Getenv("MCPTOOL_PIDFILE"); f != "" {
		os.WriteFile(f, []byte(fmt.Sprint(os.Getpid())), 0o600)
	}
	if mode == "stderr" {
		fmt.Fprintln(os.Stderr, "hello from the server's stderr")
	}
	s := &rawServer{mode: mode}
	if err := s.serve(os.Stdin, os.Stdout); err != nil {
		return 1
	}
	return 0
}

// gone reports whether the process pid has exited (a zombie counts: it
// will never run again).
func gone(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	fields := strings.Fields(string(data))
	// The state follows the command name in parentheses.
	for i, f := range fields {
		if strings.HasSuffix(f, ")") && i+1 < len(fields) {
			return fields[i+1] == "Z"
		}
	}
	return false
}

// eventually polls cond until it holds or a generous bound passes; it is for
// waiting on another process, which cannot signal us.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
