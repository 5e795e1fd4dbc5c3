package main_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/testing/browsertest"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
	"github.com/mcpbridge/mcpbridge/internal/testing/npmtest"
	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
)

// bin is the mcpbridge binary, built once for every test, and
// mcpbridge-chat next to it, which runs chat for it.
var bin string

func TestMain(m *testing.M) {
	hostile.ServeIfChild()
	dir, err := os.MkdirTemp("", "mcpbridge-cli-test")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "mcpbridge")
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator), ".", "../mcpbridge-chat")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building mcpbridge:", err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		return runWithLeakCheck(m)
	}()
	os.Exit(code)
}

func runWithLeakCheck(m *testing.M) int {
	code := m.Run()
	browsertest.Close()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return code
}

// hostileServer returns the arguments that make mcpbridge start this test
// binary as a hostile server in mode: the --env flag that names the mode,
// then the command after --.
func hostileServer(t *testing.T, mode string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if mode == "" {
		mode = "-"
	}
	return []string{"--env", hostile.ChildEnv + "=" + mode, "--env", "GORACE=atexit_sleep_ms=0", "--", exe}
}

// ownCache returns the environment that gives a run of mcpbridge, and the
// servers it starts (which get HOME), a home and a cache of their own: the
// demo's notes, kept in the user's cache, are then the run's alone, and no
// test touches the user's. A test that runs commands on the same notes
// passes one ownCache to each.
func ownCache(t *testing.T) []string {
	home := t.TempDir()
	return []string{"HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), demo.NotesEnv + "="}
}

type result struct {
	out, err string
	code     int
}

// mcpbridge runs the binary with args, in dir (if not empty), with extra
// environment, feeding stdin.
func mcpbridge(t *testing.T, dir, stdin string, env []string, args ...string) result {
	t.Helper()
	return runBinary(t, bin, dir, stdin, env, args...)
}

// runBinary runs the mcpbridge binary at path as mcpbridge does bin.
func runBinary(t *testing.T, path, dir, stdin string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = dir
	// Answers to "run ./mcp.json?" land in the test's own directory.
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "MCPBRIDGE_CONFIG_DIR="+t.TempDir())
	cmd.Env = append(append(cmd.Env, ownCache(t)...), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	code := 0
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("running mcpbridge %v: %v", args, err)
	}
	if strings.Contains(errb.String(), "goroutine ") || strings.Contains(errb.String(), "panic:") {
		t.Fatalf("a Go stack trace on stderr:\n%s", errb.String())
	}
	return result{out.String(), errb.String(), code}
}

func expect(t *testing.T, r result, code int, outHas ...string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.out, r.err)
	}
	for _, s := range outHas {
		if !strings.Contains(r.out+r.err, s) {
			t.Fatalf("output lacks %q\nstdout:\n%s\nstderr:\n%s", s, r.out, r.err)
		}
	}
}

// decode fails the test unless out is JSON that decodes into v, no field
// unknown to v.
func decode(t *testing.T, out string, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(out)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decoding %T: %v\n%s", v, err, out)
	}
}

func TestVersionAndHelp(t *testing.T) {
	expect(t, mcpbridge(t, "", "", nil, "--version"), 0, "mcpbridge ")
	expect(t, mcpbridge(t, "", "", nil, "--help"), 0, "Commands:", "tools", "serve-demo")
	for _, c := range []string{"tools", "call", "read", "info", "lint", "chat", "web", "serve-demo"} {
		expect(t, mcpbridge(t, "", "", nil, c, "--help"), 0, "Usage: mcpbridge "+c, "Examples:")
	}
	expect(t, mcpbridge(t, "", "", nil, "frobnicate"), 2, "unknown command")
	expect(t, mcpbridge(t, "", "", nil, "tools", "--bogus"), 2, "unknown flag --bogus")
	expect(t, mcpbridge(t, "", "", nil, "lint", "extra"), 2, `lint takes no arguments, got "extra"`, "run mcpbridge lint --help")
}

func TestToolsOnTheDemo(t *testing.T) {
	r := mcpbridge(t, t.TempDir(), "", nil, "tools")
	expect(t, r, 0, "add_note", "parameters: title* string, body* string, tags array", "[read-only", "demo: ready, 11 tools")
	// What the hints in brackets mean is in the command's help.
	expect(t, mcpbridge(t, "", "", nil, "tools", "--help"), 0, "closed-world (reaches nothing outside\nthe server")
	// Its output says they are the demo's, as the progress line on
	// stderr does.
	if !strings.HasPrefix(r.out, "The bundled demo server's tools (no server was given") {
		t.Errorf("stdout does not begin by saying the tools are the demo's:\n%s", r.out)
	}
	// As an OpenAI model sees them: optional arguments nullable, strict.
	r = mcpbridge(t, t.TempDir(), "", nil, "tools", "--vendor", "openai")
	expect(t, r, 0, "parameters: title* string, body* string, tags* array|null", "\nstrict: every tool: the model's arguments always match the schema\n")
	if n := strings.Count(r.out, "strict"); n != 1 {
		t.Errorf("strict said %d times, want once:\n%s", n, r.out)
	}
	if strings.Contains(r.out, "\x1b[") {
		t.Fatal("colour codes with NO_COLOR set and no terminal")
	}
	var openai []struct {
		Type     string
		Function struct {
			Name       string
			Parameters map[string]any
		}
	}
	r = mcpbridge(t, t.TempDir(), "", nil, "tools", "--json", "--vendor", "openai")
	expect(t, r, 0)
	if err := json.Unmarshal([]byte(r.out), &openai); err != nil || len(openai) != 11 || openai[0].Type != "function" || openai[0].Function.Parameters["type"] != "object" {
		t.Fatalf("openai wire format: %v\n%s", err, r.out)
	}
	var anthropic []struct {
		Name        string
		InputSchema map[string]any `json:"input_schema"`
	}
	r = mcpbridge(t, t.TempDir(), "", nil, "tools", "--json")
	if err := json.Unmarshal([]byte(r.out), &anthropic); err != nil || len(anthropic) != 11 || anthropic[0].InputSchema == nil {
		t.Fatalf("anthropic wire format: %v\n%s", err, r.out)
	}
	var gemini []struct {
		FunctionDeclarations []struct {
			Name       string
			Parameters json.RawMessage
		} `json:"functionDeclarations"`
	}
	r = mcpbridge(t, t.TempDir(), "", nil, "tools", "--json", "--vendor", "gemini")
	if err := json.Unmarshal([]byte(r.out), &gemini); err != nil || len(gemini) != 1 || len(gemini[0].FunctionDeclarations) != 11 {
		t.Fatalf("gemini wire format: %v\n%s", err, r.out)
	}
	// Gemini refuses an object without properties: a tool without
	// arguments is declared without parameters.
	for _, d := range gemini[0].FunctionDeclarations {
		if none := d.Name == "list_notes" || d.Name == "note_stats" || d.Name == "notes_board" || d.Name == "broken_job"; none != (d.Parameters == nil) {
			t.Errorf("gemini declaration of %s: parameters %s", d.Name, d.Parameters)
		}
	}
}

func TestCall(t *testing.T) {
	dir := t.TempDir()
	expect(t, mcpbridge(t, dir, "", nil, "call", "add_note", `{"title":"milk","body":"buy milk"}`), 0, "added note #1: milk")
	expect(t, mcpbridge(t, dir, `{"title":"from stdin","body":"b"}`, nil, "call", "add_note", "-"), 0, "added note #1: from stdin")
	// The tool ran and failed.
	expect(t, mcpbridge(t, dir, "", nil, "call", "get_note", `{"id":7}`), 1, `tool "get_note" failed: no note with id 7`)
	// Bad arguments are caught before the server sees them
	// (TestCallRefusedBeforeSending).
	expect(t, mcpbridge(t, dir, "", nil, "call", "get_note", `{"id":"seven"}`), 2, `argument "id"`)
	expect(t, mcpbridge(t, dir, "", nil, "call", "get_note", `{not json`), 2, "not valid JSON")
	expect(t, mcpbridge(t, dir, "", nil, "call", "no_such_tool"), 2, `no tool "no_such_tool"; run mcpbridge tools`)
	expect(t, mcpbridge(t, dir, "", nil, "call", "add-nte"), 2, `no tool "add-nte"; did you mean "add_note"?`)
	// Images are saved to files whose paths are printed.
	r := mcpbridge(t, dir, "", nil, "call", "color_swatch", `{"color":"teal"}`, "--out", dir)
	expect(t, r, 0, "64x64 swatch of #008080", "saved to "+dir)
	path := regexp.MustCompile(`saved to (\S+)\]`).FindStringSubmatch(r.out)[1]
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Fatalf("saved image: %v", err)
	}
	// --raw prints the MCP result as JSON, isError intact.
	r = mcpbridge(t, dir, "", nil, "call", "get_note", `{"id":7}`, "--raw")
	expect(t, r, 1, `"isError": true`)
}

// demoHTTP runs "mcpbridge serve-demo --http 127.0.0.1:0" and returns its
// base URL.
func demoHTTP(t *testing.T) string {
	t.Helper()
	_, stderr := started(t, nil, os.Interrupt, "serve-demo", "--http", "127.0.0.1:0", "--notes", filepath.Join(t.TempDir(), "notes.json"))
	line, err := bufio.NewReader(stderr).ReadString('\n')
	if err != nil {
		t.Fatalf("serve-demo said %q: %v", line, err)
	}
	m := regexp.MustCompile(`http://[^/ ]+`).FindString(line)
	if m == "" {
		t.Fatalf("no address in %q", line)
	}
	return m
}

// started starts the built mcpbridge with args and env (nil: this
// process's), stopped by the signal stop and waited for at the test's end,
// and returns it with its stderr.
func started(t *testing.T, env []string, stop os.Signal, args ...string) (*exec.Cmd, io.Reader) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(stop)
		cmd.Wait()
	})
	return cmd, stderr
}

func TestOverHTTP(t *testing.T) {
	base := demoHTTP(t)
	dir := t.TempDir()
	expect(t, mcpbridge(t, dir, "", nil, "tools", "--url", base+"/mcp"), 0, "add_note")
	expect(t, mcpbridge(t, dir, "", nil, "call", "add_note", `{"title":"over http","body":"b"}`, "--url", base+"/mcp"), 0, "added note #1")
	// The HTTP server keeps its notes across sessions; SSE reaches the same store.
	expect(t, mcpbridge(t, dir, "", nil, "read", "notes://all", "--url", base+"/mcp"), 0, "over http")
	expect(t, mcpbridge(t, dir, "", nil, "info", "--url", base+"/sse"), 0, "server:       mcpbridge-demo", "protocol:", "instructions:")
	expect(t, mcpbridge(t, dir, "", nil, "info", "--url", base+"/mcp"), 0, "server:       mcpbridge-demo")
	expect(t, mcpbridge(t, dir, "", nil, "lint", "--url", base+"/mcp"), 0, "0 refused")
	expect(t, mcpbridge(t, dir, "", nil, "tools", "--url", base+"/sse"), 0, "add_note")
}

func TestInfoAndReadOverStdio(t *testing.T) {
	dir := t.TempDir()
	expect(t, mcpbridge(t, dir, "", nil, "info"), 0, "server:       mcpbridge-demo", "protocol:     2026-07-28", "tools:        11",
		"skills:       weekly-review: Review the week's notes", "instructions:")
	expect(t, mcpbridge(t, dir, "", nil, "read", "notes://all"), 0, "")
	// Without a URI, read lists what there is to read, templates marked.
	r := mcpbridge(t, dir, "", nil, "read")
	expect(t, r, 0, "notes://all  All notes (text/markdown)\n  Every note, rendered as markdown.",
		"notes://{id}  One note (text/markdown; a template: fill in {id})\n  A single note by id, rendered as markdown.")
	// A resource the server does not have is the caller's mistake, as a
	// tool it does not have is: status 2, the server's words after.
	r = mcpbridge(t, dir, "", nil, "read", "notes://999")
	expect(t, r, 2, `mcpbridge read: server "demo" has no resource "notes://999": Resource not found; mcpbridge read lists them`)
	oneLine(t, r)
}

func TestServerEverything(t *testing.T) {
	everything := npmtest.Bin(t, "mcp-server-everything")
	dir := t.TempDir()
	expect(t, mcpbridge(t, dir, "", nil, "tools", "--", everything, "stdio"), 0, "echo", "get-tiny-image")
	expect(t, mcpbridge(t, dir, "", nil, "call", "echo", `{"message":"hello from the CLI"}`, "--", everything, "stdio"), 0, "hello from the CLI")
	r := mcpbridge(t, dir, "", nil, "call", "get-tiny-image", "--out", dir, "--", everything, "stdio")
	expect(t, r, 0, "[image image/png")
	expect(t, mcpbridge(t, dir, "", nil, "lint", "--", everything, "stdio"), 0, "0 refused")
}

// Three real servers from npm as one config: every vendor takes every tool,
// and each server answers a call through its own name.
func TestRealServersFromOneConfig(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "files")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hello from a real server\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	config, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": npmtest.Bin(t, "mcp-server-everything"), "args": []string{"stdio"}},
		"files":      map[string]any{"command": npmtest.Bin(t, "mcp-server-filesystem"), "args": []string{root}, "required": true},
		"memory": map[string]any{"command": npmtest.Bin(t, "mcp-server-memory"), "required": true,
			"env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "memory.jsonl")}},
	}})
	cfg := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(cfg, config, 0o644); err != nil {
		t.Fatal(err)
	}
	expect(t, mcpbridge(t, dir, "", nil, "lint", "--config", cfg), 0, "0 refused")
	expect(t, mcpbridge(t, dir, "", nil, "call", "read_text_file", `{"path":"`+filepath.Join(root, "hello.txt")+`"}`, "--config", cfg, "--server", "files"),
		0, "hello from a real server")
	// Outside the allowed directory: the server refuses, the tool failed.
	expect(t, mcpbridge(t, dir, "", nil, "call", "read_text_file", `{"path":"/etc/passwd"}`, "--config", cfg, "--server", "files"), 1, "read_text_file")
	entities := `{"entities":[{"name":"Ada","entityType":"person","observations":["wrote the first program"]}]}`
	expect(t, mcpbridge(t, dir, "", nil, "call", "create_entities", entities, "--config", cfg, "--server", "memory"), 0, "Ada")
	expect(t, mcpbridge(t, dir, "", nil, "call", "search_nodes", `{"query":"program"}`, "--config", cfg, "--server", "memory"), 0, "wrote the first program")
}

func TestConnectionFailures(t *testing.T) {
	dir := t.TempDir()
	r := mcpbridge(t, dir, "", nil, "tools", "--", filepath.Join(dir, "no-such-server"))
	expect(t, r, 3, "no-such-server", "no such file")
	// A server that exits at once.
	expect(t, mcpbridge(t, dir, "", nil, "tools", "--", "false"), 3, `server "false" did not start: it exited with status 1 before answering`)
	// Nothing listens there; the header's secret never shows.
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	r = mcpbridge(t, dir, "", nil, "tools", "--url", url+"/mcp", "--header", "Authorization: Bearer sk-TOPSECRET")
	expect(t, r, 3, "connection refused")
	if strings.Contains(r.out+r.err, "TOPSECRET") {
		t.Fatal("the header's secret was printed")
	}
	if lines := strings.Count(strings.TrimSpace(r.err), "\n"); lines > 0 {
		t.Fatalf("want one line on stderr, got:\n%s", r.err)
	}
}

func writeConfig(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, dir, "servers.json", fmt.Sprintf(`{"mcpServers": {
		"home": {"command": %q, "args": ["serve-demo"]},
		"work": {"command": %q, "args": ["serve-demo"], "prefix": "job"},
		"broken": {"command": %q}
	}}`, bin, bin, filepath.Join(dir, "missing")))
	// A server that did not start fails the listing, after the others'.
	r := mcpbridge(t, dir, "", nil, "tools", "--config", cfg)
	expect(t, r, 3, "home_add_note", "job_add_note", "home: ready", "work: ready", "broken:", `server "broken" did not start`)
	expect(t, mcpbridge(t, dir, "", nil, "lint", "--config", cfg), 3, `server "broken" did not start`)
	expect(t, mcpbridge(t, dir, "", nil, "info", "--config", cfg), 3, `server "broken" did not start`)
	expect(t, mcpbridge(t, dir, "", nil, "call", "job_add_note", `{"title":"t","body":"b"}`, "--config", cfg), 0, "added note #1")
	// A tool's own name is ambiguous across servers.
	expect(t, mcpbridge(t, dir, "", nil, "call", "add_note", `{}`, "--config", cfg), 2, "several servers")
	expect(t, mcpbridge(t, dir, "", nil, "tools", "--config", cfg, "--server", "work"), 0, "job_add_note")
	expect(t, mcpbridge(t, dir, "", nil, "tools", "--config", cfg, "--server", "nope"), 2, `no server "nope"`)
	// ./mcp.json is the default target once trusted (TestLocalConfigTrust);
	// --config names it without asking.
	writeConfig(t, dir, "mcp.json", fmt.Sprintf(`{"servers": {"local": {"type": "stdio", "command": %q, "args": ["serve-demo"]}}}`, bin))
	expect(t, mcpbridge(t, dir, "", nil, "tools", "--config", "mcp.json"), 0, "local_add_note")
}

func TestBadConfig(t *testing.T) {
	dir := t.TempDir()
	bad := writeConfig(t, dir, "bad.json", `{"mcpServers": {"x": {"comand": "npx", "url": "ftp://h"}, "y": {"url": "http://h", "headers": {"Authorization": "Bearer sk-SECRET"}, "prefix": "9bad"}}}`)
	r := mcpbridge(t, dir, "", nil, "tools", "--config", bad)
	expect(t, r, 2, `server "x": key "comand"`, `did you mean "command"`, `server "y": key "prefix"`)
	if strings.Contains(r.err, "SECRET") {
		t.Fatal("a secret in the error")
	}
	broken := writeConfig(t, dir, "broken.json", `{"mcpServers": {`)
	expect(t, mcpbridge(t, dir, "", nil, "tools", "--config", broken), 2, "broken.json")
	expect(t, mcpbridge(t, dir, "", nil, "tools", "--url", "http://x/mcp", "--", "cmd"), 2, "one target")
}

func TestLint(t *testing.T) {
	dir := t.TempDir()
	expect(t, mcpbridge(t, dir, "", nil, "lint"), 0, "0 refused")
	self, _ := os.Executable()
	cfg := writeConfig(t, dir, "rec.json", fmt.Sprintf(`{"mcpServers": {"rec": {"command": %q, "env": {%q: "tree-schema", "GORACE": "atexit_sleep_ms=0"}}}}`, self, hostile.ChildEnv))
	r := mcpbridge(t, dir, "", nil, "lint", "--vendor", "gemini", "--config", cfg)
	expect(t, r, 1, `refused gemini: server "rec" tool "tree"`, "1 refused")
	if strings.Contains(r.out, `tool "flat"`) {
		t.Fatalf("the clean tool was reported:\n%s", r.out)
	}
}

// addNoteCall is a tool call of the fake model's: add the note "milk".
const addNoteCall = `{"id":"c1","type":"function","function":{"name":"add_note","arguments":"{\"title\":\"milk\",\"body\":\"buy milk\"}"}}`

// streamed serves h's Chat Completions as a stream of chunks to a request
// that asks for one ("stream": true, as web's turns do to show the answer
// as it is written): the role, the text a word at a time, each tool call,
// the finish reason and the usage, then [DONE]. Other requests get h's
// answer as it is.
func streamed(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct{ Stream bool }
		if json.Unmarshal(body, &req) != nil || !req.Stream {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		var done struct {
			ID, Model string
			Choices   []struct {
				FinishReason string `json:"finish_reason"`
				Message      struct {
					Content   *string
					ToolCalls []json.RawMessage `json:"tool_calls"`
				}
			}
			Usage json.RawMessage
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &done); err != nil || len(done.Choices) != 1 {
			http.Error(w, "the fake's answer is no completion: "+rec.Body.String(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta any, finish any, usage json.RawMessage) {
			c := map[string]any{"id": done.ID, "object": "chat.completion.chunk", "created": 0, "model": done.Model,
				"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
			if usage != nil {
				c["choices"], c["usage"] = []any{}, usage
			}
			data, _ := json.Marshal(c)
			fmt.Fprintf(w, "data: %s\n\n", data)
		}
		chunk(map[string]any{"role": "assistant"}, nil, nil)
		m := done.Choices[0].Message
		if m.Content != nil {
			for _, word := range strings.SplitAfter(*m.Content, " ") {
				chunk(map[string]any{"content": word}, nil, nil)
			}
		}
		for i, call := range m.ToolCalls {
			var c map[string]any
			json.Unmarshal(call, &c)
			c["index"] = i
			chunk(map[string]any{"tool_calls": []any{c}}, nil, nil)
		}
		chunk(map[string]any{}, done.Choices[0].FinishReason, nil)
		chunk(nil, nil, done.Usage)
		io.WriteString(w, "data: [DONE]\n\n")
	})
}

// fakeOpenAI serves a scripted Chat Completions API: the tool calls given
// (Chat Completions JSON, parallel when several), then an answer that quotes
// the last tool result, and again. What it returns besides the URL gives the
// system prompt, the tool names (one sent with "strict": true marked
// " (strict)") and the messages, as role: content, of the latest request.
func fakeOpenAI(t *testing.T, calls ...string) (string, func() (system string, tools, messages []string)) {
	var mu sync.Mutex
	turn := 0
	var system string
	var tools, messages []string
	srv := httptest.NewServer(streamed(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []map[string]any `json:"messages"`
			Tools    []struct {
				Function struct {
					Name   string
					Strict bool
				} `json:"function"`
			} `json:"tools"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		turn++
		n := turn
		if len(body.Messages) > 0 && body.Messages[0]["role"] == "system" {
			system = fmt.Sprint(body.Messages[0]["content"])
		}
		messages = messages[:0]
		for _, m := range body.Messages {
			messages = append(messages, fmt.Sprintf("%v: %v", m["role"], m["content"]))
		}
		tools = tools[:0]
		for _, tl := range body.Tools {
			name := tl.Function.Name
			if tl.Function.Strict {
				name += " (strict)"
			}
			tools = append(tools, name)
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if n%2 == 1 {
			io.WriteString(w, `{"id":"1","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[`+
				strings.Join(calls, ",")+`]}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
			return
		}
		last := body.Messages[len(body.Messages)-1]
		answer, _ := json.Marshal("The tool said: " + fmt.Sprint(last["content"]))
		fmt.Fprintf(w, `{"id":"2","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":%s}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`, answer)
	})))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", func() (string, []string, []string) {
		mu.Lock()
		defer mu.Unlock()
		return system, slices.Clone(tools), slices.Clone(messages)
	}
}

func TestChat(t *testing.T) {
	dir := t.TempDir()
	clean := []string{"OPENAI_API_KEY=", "OPENAI_BASE_URL=", "ANTHROPIC_API_KEY="}
	// Each variable alone chooses a model, as the message says.
	expect(t, mcpbridge(t, dir, "", clean, "chat", "-p", "hi"), 2, "mcpbridge chat: no model configured: set OPENAI_API_KEY for api.openai.com, "+
		"OPENAI_BASE_URL for an OpenAI-compatible server such as Ollama at http://localhost:11434/v1, or ANTHROPIC_API_KEY\n")
	url, seen := fakeOpenAI(t, addNoteCall)
	r := mcpbridge(t, dir, "", append(clean, "OPENAI_BASE_URL="+url), "chat", "-p", "remember to buy milk", "--model", "test-model")
	expect(t, r, 0, "The tool said: added note #1: milk")
	env := append(clean, "OPENAI_BASE_URL="+url, "OPENAI_API_KEY=test")
	r = mcpbridge(t, dir, "", env, "chat", "-p", "remember to buy milk", "--model", "test-model")
	expect(t, r, 0, "The tool said: added note #1: milk", `→ add_note {"title":"milk","body":"buy milk"}`, "← add_note: added note #1: milk")
	// The model is told the server's instructions and offered its skill.
	system, tools, _ := seen()
	if !strings.Contains(system, "<server_instructions>") || !strings.Contains(system, "\n- demo/weekly-review: Review the week's notes") {
		t.Errorf("system prompt lacks the instructions or the skill:\n%s", system)
	}
	// An OpenAI model gets OpenAI's names and strict schemas, the agent's
	// own tools lowered as the servers' are.
	if !slices.Contains(tools, "load_skill (strict)") || !slices.Contains(tools, "get_note (strict)") {
		t.Errorf("tools offered: %v", tools)
	}
	// Interactive, from stdin: the second turn carries the first.
	r = mcpbridge(t, dir, "remember milk\nand again\n", env, "chat", "--model", "test-model")
	expect(t, r, 0, "The tool said: added note #1: milk", "The tool said: added note #2: milk")
	_, _, messages := seen()
	if !slices.Contains(messages, "user: remember milk") || !slices.Contains(messages, "assistant: The tool said: added note #1: milk") {
		t.Errorf("the second turn lacks the first:\n%s", strings.Join(messages, "\n"))
	}
}

// Ctrl-C while chatting, between turns: mcpbridge-chat, which took
// mcpbridge's process (so a terminal's Ctrl-C reaches it once), exits with
// status 130, and the server is gone.
func TestInterruptStopsServers(t *testing.T) {
	cmd := exec.Command(bin, "chat", "--model", "m")
	cmd.Dir = t.TempDir()
	cmd.Env = append(append(os.Environ(), ownCache(t)...), "OPENAI_BASE_URL=http://127.0.0.1:1/v1", "OPENAI_API_KEY=x")
	stdin, _ := cmd.StdinPipe()
	defer stdin.Close()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the demo server is ready: then it is a child of
	// mcpbridge-chat, in mcpbridge's process.
	line, err := bufio.NewReader(stderr).ReadString('\n')
	if err != nil || !strings.Contains(line, "ready") {
		t.Fatalf("waiting for the server: %q, %v", line, err)
	}
	kids := proctest.Children(cmd.Process.Pid)
	if len(kids) != 1 {
		t.Fatalf("%d child processes, want the demo server alone", len(kids))
	}
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if code := cmd.ProcessState.ExitCode(); code != 130 {
			t.Errorf("exit status %d (%v), want 130", code, err)
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("mcpbridge did not exit on Ctrl-C")
	}
	if proctest.Alive(kids[0]) {
		t.Fatalf("the server (process %d) outlived mcpbridge", kids[0])
	}
}

// Without mcpbridge-chat next to it or on PATH, chat says in one line how
// to get it: status 2.
func TestChatProgramMissing(t *testing.T) {
	alone := filepath.Join(t.TempDir(), "mcpbridge")
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, data, 0o755); err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, alone, t.TempDir(), "", []string{"PATH=" + t.TempDir()}, "chat", "-p", "hi")
	expect(t, r, 2, "mcpbridge chat: mcpbridge-chat, the program that runs chat, is neither next to mcpbridge nor on PATH: ",
		"in a clone of mcpbridge, go install ./cmd/mcpbridge ./cmd/mcpbridge-chat installs both, or go run ./cmd/mcpbridge-chat runs it with the same arguments\n")
	// The module is not published: a version at the proxy does not exist.
	if strings.Contains(r.err, "@latest") {
		t.Errorf("the hint names a version the module proxy does not have:\n%s", r.err)
	}
	oneLine(t, r)
}
