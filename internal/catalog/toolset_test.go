package catalog_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
	"github.com/mcpbridge/mcpbridge/internal/toolschema"
	"github.com/mcpbridge/mcpbridge/schema"
	"github.com/mcpbridge/mcpbridge/tool"
)

// demoTools are the demo server's tools, in the order it lists them.
var demoTools = []string{"add_note", "broken_job", "color_swatch", "delete_note", "get_note", "list_notes", "note_stats", "notes_board", "search_notes", "slow_count", "tag_report"}

// stdioDemo is a server entry that starts the test binary as the demo
// server, with no 1 s pause at exit under the race detector.
func stdioDemo(t testing.TB, name string) config.Server {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return config.Server{Name: name, Command: exe, Env: map[string]string{demo.ChildEnv: "stdio", "GORACE": "atexit_sleep_ms=0"}}
}

// serve puts handler on loopback for the test's duration.
func serve(t *testing.T, handler http.Handler) string {
	t.Helper()
	ts := httptest.NewServer(handler)
	t.Cleanup(ts.Close)
	return ts.URL
}

// serveMCP serves a go-sdk server over streamable HTTP on loopback.
func serveMCP(t *testing.T, server *mcp.Server) string {
	t.Helper()
	return serve(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
}

// logBuffer is a logger whose output a test can read.
type logBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	watches map[string]chan struct{}
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s, ch := range b.watches {
		if bytes.Contains(p, []byte(s)) {
			close(ch)
			delete(b.watches, s)
		}
	}
	return b.buf.Write(p)
}

// watch returns a channel closed when a line containing s is logged.
func (b *logBuffer) watch(s string) <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.watches == nil {
		b.watches = map[string]chan struct{}{}
	}
	ch := make(chan struct{})
	b.watches[s] = ch
	return ch
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func start(t *testing.T, cfg *config.Config, opts ...catalog.Option) *catalog.Toolset {
	t.Helper()
	ts, err := catalog.Start(context.Background(), cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := ts.Close(); err != nil {
			t.Error(err)
		}
	})
	return ts
}

func names(defs []tool.Definition) []string {
	var out []string
	for _, d := range defs {
		out = append(out, d.Name)
	}
	return out
}

func call(t *testing.T, h tool.Handler, name string, args json.RawMessage) string {
	t.Helper()
	res, err := h.Call(context.Background(), name, args)
	if err != nil {
		t.Fatal(err)
	}
	return res.Text()
}

// A barrier holds every initialize it is sent until n have arrived, so
// servers behind it start only when they are started together.
type barrier struct {
	n       int
	mu      sync.Mutex
	arrived int
	all     chan struct{} // closed when n have arrived
}

func newBarrier(n int) *barrier { return &barrier{n: n, all: make(chan struct{})} }

// serve puts handler behind the barrier: a request whose method is
// initialize is passed on once n initialize requests have arrived, or
// answered 503 when its client gives up first.
func (b *barrier) serve(handler http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(body, &msg) == nil && msg.Method == "initialize" {
			b.mu.Lock()
			if b.arrived++; b.arrived == b.n {
				close(b.all)
			}
			b.mu.Unlock()
			select {
			case <-b.all:
			case <-r.Context().Done():
				http.Error(w, "the other servers were never started", http.StatusServiceUnavailable)
				return
			}
		}
		handler.ServeHTTP(w, r)
	})
}

// Three servers start together: each answers its initialize only once all
// three have been sent theirs, so servers started one after another never
// start (the first fails at its connect timeout, and Start with it, being
// required). Each is then ready with its tools, the catalog lists them
// server by server, and calls reach the right one.
func TestStartParallel(t *testing.T) {
	servers := []string{"a", "b", "c"}
	b := newBarrier(len(servers))
	cfg := &config.Config{}
	for _, name := range servers {
		url := serve(t, b.serve(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return demo.New() }, nil)))
		// The timeout bounds a start that waits on the barrier in vain;
		// one made together never waits on it.
		cfg.Servers = append(cfg.Servers, config.Server{Name: name, URL: url, Required: true, Timeout: 20 * time.Second})
	}
	var mu sync.Mutex
	var events []catalog.ServerStatus
	ts := start(t, cfg, catalog.OnStatus(func(s catalog.ServerStatus) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, s)
	}))
	for _, s := range ts.Status() {
		if s.State != mcptool.StateReady || s.Err != nil || s.Tools != len(demoTools) {
			t.Errorf("status %+v, want ready with %d tools", s, len(demoTools))
		}
	}
	mu.Lock()
	for _, name := range servers {
		var seen []string
		for _, e := range events {
			if e.Name == name {
				seen = append(seen, e.State.String())
			}
		}
		if !slices.Contains(seen, "connecting") || !slices.Contains(seen, "ready") {
			t.Errorf("server %s: status events %v, want connecting and ready", name, seen)
		}
	}
	mu.Unlock()
	snap := ts.Snapshot(context.Background())
	var want []string
	for _, server := range servers {
		for _, tl := range demoTools {
			want = append(want, server+"_"+tl)
		}
	}
	if got := names(snap.Definitions()); !slices.Equal(got, want) {
		t.Fatalf("names %v, want %v", got, want)
	}
	h := snap.Handler()
	call(t, h, "b_add_note", json.RawMessage(`{"title": "milk", "body": "buy milk"}`))
	if got := call(t, h, "b_list_notes", nil); !strings.Contains(got, "milk") {
		t.Errorf("b_list_notes: %q, want the note added on b", got)
	}
	if got := call(t, h, "a_list_notes", nil); strings.Contains(got, "milk") {
		t.Errorf("a_list_notes: %q shows b's note", got)
	}
	if got := ts.Instructions(); len(got) != 3 || got["a"] == "" {
		t.Errorf("instructions for %d servers, want 3", len(got))
	}
}

// An optional server that cannot start is logged and left out; the others
// serve, and its status says why.
func TestOptionalServerLeftOut(t *testing.T) {
	var log logBuffer
	cfg := &config.Config{Servers: []config.Server{
		{Name: "broken", Command: "/nonexistent/mcp-server"},
		stdioDemo(t, "notes"),
	}}
	ts := start(t, cfg, catalog.WithLogger(log.logger()))
	st := ts.Status()
	if st[0].Name != "broken" || st[0].State != mcptool.StateFailed || st[0].Err == nil || st[0].Tools != 0 {
		t.Errorf("broken: %+v, want failed with its error", st[0])
	}
	if st[1].State != mcptool.StateReady || st[1].Tools != len(demoTools) {
		t.Errorf("notes: %+v, want ready", st[1])
	}
	if l := log.String(); !strings.Contains(l, "broken") || !strings.Contains(l, "left out") || !strings.Contains(l, "nonexistent") {
		t.Errorf("log does not name the server and its error:\n%s", l)
	}
	if got := len(ts.Snapshot(context.Background()).Definitions()); got != len(demoTools) {
		t.Errorf("%d tools, want the demo's %d", got, len(demoTools))
	}
	if ins := ts.Instructions(); len(ins) != 1 {
		t.Errorf("instructions %v, want only notes'", ins)
	}
}

// Without WithLogger, an optional server that cannot start is still said:
// through slog.Default(), as the standard library's servers log, warnings
// and errors only, so that what went right stays quiet.
func TestOptionalServerLeftOutSaidByDefault(t *testing.T) {
	var log logBuffer
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})))
	cfg := &config.Config{Servers: []config.Server{
		{Name: "broken", Command: "/nonexistent/mcp-server"},
		stdioDemo(t, "notes"),
	}}
	start(t, cfg)
	l := log.String()
	if !strings.Contains(l, "level=WARN") || !strings.Contains(l, "broken") || !strings.Contains(l, "left out") {
		t.Errorf("the default logger was not told of the server left out:\n%s", l)
	}
	if strings.Contains(l, "level=INFO") || strings.Contains(l, "level=DEBUG") {
		t.Errorf("the default logger was told more than warnings:\n%s", l)
	}
}

// A required server that fails fails Start with its error, after the
// servers already started are closed: the demo's HTTP session is deleted.
func TestRequiredServerFails(t *testing.T) {
	gate := make(chan struct{})
	required := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-gate // until the other server is ready, so that there is one to close
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
	}))
	var deletes atomic.Int32
	handler := demo.HTTPHandler()
	notes := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			deletes.Add(1)
		}
		handler.ServeHTTP(w, r)
	}))
	cfg := &config.Config{Servers: []config.Server{
		{Name: "vault", URL: required, Required: true},
		{Name: "notes", URL: notes},
	}}
	var once sync.Once
	ts, err := catalog.Start(context.Background(), cfg, catalog.OnStatus(func(s catalog.ServerStatus) {
		if s.Name == "notes" && s.State == mcptool.StateReady {
			once.Do(func() { close(gate) })
		}
	}))
	once.Do(func() { close(gate) })
	if err == nil {
		ts.Close()
		t.Fatal("Start succeeded without its required server")
	}
	if !strings.Contains(err.Error(), `"vault"`) || !strings.Contains(err.Error(), "required") {
		t.Errorf("error %q does not name the required server", err)
	}
	var se *catalog.StartError
	var te *mcpclient.TransportError
	if !errors.As(err, &se) || se.Server != "vault" || !errors.As(err, &te) {
		t.Errorf("error %#v: want a StartError for vault wrapping its TransportError", err)
	}
	if deletes.Load() != 1 {
		t.Errorf("the started server's session was deleted %d times, want 1", deletes.Load())
	}
}

// Two required servers offering the same tool collide without namespaces,
// and the error names both and the tool; the default namespaces keep them
// apart. (Optional servers: TestOptionalCollisionLeftOut.)
func TestCollision(t *testing.T) {
	one, two := serve(t, demo.HTTPHandler()), serve(t, demo.HTTPHandler())
	cfg := &config.Config{Servers: []config.Server{
		{Name: "home", URL: one, Namespace: config.NamespaceNone, Required: true},
		{Name: "work", URL: two, Namespace: config.NamespaceNone, Required: true},
	}}
	ts, err := catalog.Start(context.Background(), cfg)
	if err == nil {
		ts.Close()
		t.Fatal("Start accepted two servers offering add_note under one name")
	}
	for _, want := range []string{`"home"`, `"work"`, `"add_note"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	cfg.Servers[0].Namespace, cfg.Servers[1].Namespace = "", ""
	ts = start(t, cfg)
	got := names(ts.Snapshot(context.Background()).Definitions())
	if !slices.Contains(got, "home_add_note") || !slices.Contains(got, "work_add_note") {
		t.Errorf("names %v, want both add_note tools namespaced", got)
	}
}

// A server name too long for OpenAI gives hash-suffixed names that OpenAI
// accepts; Lookup maps them back, and the alias works through the handler.
func TestVendorNames(t *testing.T) {
	long := strings.Repeat("knowledge-base-", 5) + "notes"
	cfg := &config.Config{Servers: []config.Server{{Name: long, URL: serve(t, demo.HTTPHandler())}}}
	ts := start(t, cfg, catalog.WithVendor(schema.OpenAI))
	snap := ts.Snapshot(context.Background())
	defs := snap.Definitions()
	if len(defs) != len(demoTools) {
		t.Fatalf("%d tools, want %d", len(defs), len(demoTools))
	}
	for i, d := range defs {
		if err := toolschema.CheckName(toolschema.OpenAI, d.Name); err != nil {
			t.Error(err)
		}
		if !strings.HasPrefix(d.Name, "knowledge-base-") || len(d.Name) != 64 {
			t.Errorf("name %q, want a readable 64-byte cut with a hash suffix", d.Name)
		}
		server, tl, ok := snap.Lookup(d.Name)
		if !ok || server != long || tl != demoTools[i] {
			t.Errorf("Lookup(%q) = %q, %q, %v; want %q, %q", d.Name, server, tl, ok, long, demoTools[i])
		}
	}
	alias := "mcp__" + long + "__add_note"
	if server, tl, ok := snap.Lookup(alias); !ok || server != long || tl != "add_note" {
		t.Errorf("Lookup(alias) = %q, %q, %v", server, tl, ok)
	}
	h := snap.Handler()
	call(t, h, alias, json.RawMessage(`{"title": "by alias", "body": "x"}`))
	final, _ := toolschema.NewNamer(toolschema.OpenAI).Add(long, "list_notes", long+"_list_notes")
	if got := call(t, h, final, nil); !strings.Contains(got, "by alias") {
		t.Errorf("list_notes by its final name: %q, want the note added by alias", got)
	}
	_, err := h.Call(context.Background(), "add_note", nil)
	if !errors.Is(err, tool.ErrUnserved) {
		t.Errorf("a name not in the catalog: %v, want unserved", err)
	}
}

var recursive = json.RawMessage(`{"type": "object", "properties": {"root": {"$ref": "#/$defs/node"}},
	"$defs": {"node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}}`)

// counting adds a tool that answers "ok" and counts its calls.
func counting(server *mcp.Server, name string, input json.RawMessage, calls *atomic.Int32) {
	server.AddTool(&mcp.Tool{Name: name, Description: "Counts.", InputSchema: input},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			calls.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
}

// receiving adds a tool that answers "ok" and passes on the arguments of
// its one call, as the server received them.
func receiving(server *mcp.Server, name string, input json.RawMessage) <-chan string {
	got := make(chan string, 1)
	server.AddTool(&mcp.Tool{Name: name, InputSchema: input},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			got <- string(req.Params.Arguments)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	return got
}

// A tool whose schema Gemini cannot take is quarantined with a diagnostic
// naming server, tool and pointer; the server's other tool still serves.
func TestQuarantine(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "trees", Version: "1"}, nil)
	var calls atomic.Int32
	counting(server, "plant", recursive, &calls)
	counting(server, "water", json.RawMessage(`{"type": "object", "properties": {"litres": {"type": ["number", "null"]}}}`), &calls)
	var log logBuffer
	cfg := &config.Config{Servers: []config.Server{{Name: "garden", URL: serveMCP(t, server)}}}
	ts := start(t, cfg, catalog.WithVendor(schema.Gemini), catalog.WithLogger(log.logger()))
	snap := ts.Snapshot(context.Background())
	if got := names(snap.Definitions()); !slices.Equal(got, []string{"garden_water"}) {
		t.Fatalf("catalog %v, want only garden_water", got)
	}
	diags := ts.Quarantined()
	if len(diags) != 1 || diags[0].Server != "garden" || diags[0].Tool != "plant" || !strings.HasPrefix(diags[0].Pointer, "/") {
		t.Fatalf("diagnostics %+v, want one for garden/plant with a pointer", diags)
	}
	if !strings.Contains(log.String(), "quarantined") || !strings.Contains(log.String(), diags[0].Pointer) {
		t.Errorf("the quarantine is not logged with its pointer:\n%s", log.String())
	}
	if st := ts.Status()[0]; st.Tools != 1 {
		t.Errorf("status counts %d tools, want 1", st.Tools)
	}
	call(t, snap.Handler(), "garden_water", json.RawMessage(`{"litres": 2}`))
	if _, err := snap.Handler().Call(context.Background(), "garden_plant", nil); !errors.Is(err, tool.ErrUnserved) {
		t.Errorf("the quarantined tool: %v, want unserved", err)
	}
	if calls.Load() != 1 {
		t.Errorf("%d calls reached the server, want 1", calls.Load())
	}
}

// Arguments that break the tool's own schema never reach the server; the
// model reads which argument is wrong. No arguments are {}; arguments
// stringified whole are unwrapped where they leave the model (package llm),
// not again here.
func TestLocalValidation(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "counter", Version: "1"}, nil)
	var calls atomic.Int32
	counting(server, "add", json.RawMessage(`{"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}, "required": ["n"]}`), &calls)
	counting(server, "reset", json.RawMessage(`{"type": "object"}`), &calls)
	cfg := &config.Config{Servers: []config.Server{{Name: "c", URL: serveMCP(t, server)}}}
	ts := start(t, cfg, catalog.WithVendor(schema.OpenAI))
	h := ts.Snapshot(context.Background()).Handler()
	ctx := context.Background()
	for _, args := range []string{`{"n": "two"}`, `{"n": 0}`, `{}`, `[1]`, `"{\"n\": 2}"`} {
		_, err := h.Call(ctx, "c_add", json.RawMessage(args))
		var fe *tool.RefusedError
		if !errors.As(err, &fe) || fe.Name != "c_add" {
			t.Errorf("args %s: %v, want a refusal naming c_add", args, err)
			continue
		}
		if args[0] == '{' && !strings.Contains(fe.Message, `"n"`) {
			t.Errorf("args %s: message %q does not name the argument", args, fe.Message)
		}
	}
	if calls.Load() != 0 {
		t.Fatalf("%d bad calls reached the server", calls.Load())
	}
	call(t, h, "c_add", json.RawMessage(`{"n": 2}`))
	call(t, h, "c_reset", nil)
	if calls.Load() != 2 {
		t.Errorf("%d calls reached the server, want 2", calls.Load())
	}
}

// For OpenAI, a schema that can be strict is: the definition says so, an
// optional argument becomes required and nullable, and the null a model
// sends for it never reaches the server.
func TestOpenAIStrict(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "search", Version: "1"}, nil)
	got := receiving(server, "find", json.RawMessage(
		`{"type": "object", "properties": {"q": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["q"]}`))
	cfg := &config.Config{Servers: []config.Server{{Name: "s", URL: serveMCP(t, server)}}}
	ts := start(t, cfg, catalog.WithVendor(schema.OpenAI))
	snap := ts.Snapshot(context.Background())
	d := snap.Definitions()[0]
	if !d.Strict || !strings.Contains(string(d.InputSchema), `"limit":{"type":["integer","null"]}`) || !strings.Contains(string(d.InputSchema), `"required":["q","limit"]`) {
		t.Fatalf("definition %s (strict %v), want strict with limit required and nullable", d.InputSchema, d.Strict)
	}
	call(t, snap.Handler(), "s_find", json.RawMessage(`{"q": "go", "limit": null}`))
	if args := <-got; args != `{"q":"go"}` {
		t.Errorf("the server received %s, want the null left out", args)
	}
}

// Gemini cannot declare a free-form object, so the model is asked for it as
// a JSON string; the server receives the object its schema asks for.
func TestGeminiFreeFormObject(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "tags", Version: "1"}, nil)
	got := receiving(server, "label", json.RawMessage(
		`{"type": "object", "properties": {"labels": {"type": "object", "additionalProperties": {"type": "string"}}}, "required": ["labels"]}`))
	cfg := &config.Config{Servers: []config.Server{{Name: "t", URL: serveMCP(t, server)}}}
	ts := start(t, cfg, catalog.WithVendor(schema.Gemini))
	snap := ts.Snapshot(context.Background())
	defs := snap.Definitions()
	if len(defs) != 1 || !strings.Contains(string(defs[0].InputSchema), `"labels":{"type":"string"`) {
		t.Fatalf("definitions %+v, want labels asked for as a string", defs)
	}
	call(t, snap.Handler(), "t_label", json.RawMessage(`{"labels": "{\"env\": \"prod\"}"}`))
	if args := <-got; args != `{"labels":{"env":"prod"}}` {
		t.Errorf("the server received %s, want the labels as an object", args)
	}
	_, err := snap.Handler().Call(context.Background(), "t_label", json.RawMessage(`{"labels": "{\"env\": 1}"}`))
	var fe *tool.RefusedError
	if !errors.As(err, &fe) || !strings.Contains(fe.Message, "labels") {
		t.Errorf("a decoded object that breaks the schema: %v, want a refusal naming labels", err)
	}
}

// Between changes, Snapshot returns the same catalog; its definitions are
// copies the caller cannot alter.
func TestSnapshotStable(t *testing.T) {
	cfg := &config.Config{Servers: []config.Server{{Name: "n", URL: serve(t, demo.HTTPHandler())}}}
	ts := start(t, cfg)
	one := ts.Snapshot(context.Background())
	defs := one.Definitions()
	defs[0].Name = "changed"
	two := ts.Snapshot(context.Background())
	if one != two || two.Definitions()[0].Name != "n_add_note" {
		t.Error("a second snapshot differs though nothing changed")
	}
}

// Start returns Validate's error, and Close is idempotent.
func TestStartValidatesAndCloses(t *testing.T) {
	_, err := catalog.Start(context.Background(), &config.Config{Servers: []config.Server{{Name: "x"}}})
	var ve *config.InvalidError
	if !errors.As(err, &ve) {
		t.Fatalf("Start on a bad config: %v, want a InvalidConfigError", err)
	}
	ts, err := catalog.Start(context.Background(), &config.Config{Servers: []config.Server{{Name: "off", Command: "x", Disabled: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ts.Status()) != 0 || len(ts.Snapshot(context.Background()).Definitions()) != 0 {
		t.Error("a disabled server was started")
	}
	if ts.Close() != nil || ts.Close() != nil {
		t.Error("Close failed")
	}
}

// A tool name one server stops listing is free for another: a server that
// lists it later is not in a collision with the one that left it.
func TestNameMovesBetweenServers(t *testing.T) {
	a := mcp.NewServer(&mcp.Implementation{Name: "a", Version: "1"}, nil)
	b := mcp.NewServer(&mcp.Implementation{Name: "b", Version: "1"}, nil)
	var calls atomic.Int32
	counting(a, "x", json.RawMessage(`{"type": "object"}`), &calls)
	counting(a, "keep_a", json.RawMessage(`{"type": "object"}`), &calls)
	counting(b, "keep_b", json.RawMessage(`{"type": "object"}`), &calls)
	cfg := &config.Config{Servers: []config.Server{
		{Name: "a", URL: serveMCP(t, a), Namespace: config.NamespaceNone},
		{Name: "b", URL: serveMCP(t, b), Namespace: config.NamespaceNone},
	}}
	// A re-listing that changes how many tools a server contributes is
	// reported once the catalog shows it.
	statuses := make(chan catalog.ServerStatus, 64)
	ts := start(t, cfg, catalog.OnStatus(func(s catalog.ServerStatus) { statuses <- s }))
	waitTools := func(server string, n int) {
		for s := range statuses {
			if s.Name == server && s.Tools == n {
				return
			}
		}
	}
	ctx := context.Background()
	servedBy := func(snap *catalog.Snapshot, server string) bool {
		for _, d := range snap.Definitions() {
			if s, tl, _ := snap.Lookup(d.Name); s == server && tl == "x" {
				return true
			}
		}
		return false
	}
	if !servedBy(ts.Snapshot(ctx), "a") {
		t.Fatalf("catalog %v, want x of a", names(ts.Snapshot(ctx).Definitions()))
	}
	a.RemoveTools("x")
	waitTools("a", 1)
	if servedBy(ts.Snapshot(ctx), "a") {
		t.Fatal("x is still a's")
	}
	counting(b, "x", json.RawMessage(`{"type": "object"}`), &calls)
	waitTools("b", 2)
	snap := ts.Snapshot(ctx)
	if !servedBy(snap, "b") {
		t.Fatalf("catalog %v, diagnostics %v, want x of b", names(snap.Definitions()), ts.Quarantined())
	}
	if d := ts.Quarantined(); len(d) != 0 {
		t.Errorf("diagnostics %v, want none", d)
	}
	if got := names(snap.Definitions()); len(got) != 3 {
		t.Errorf("catalog %v, want keep_a, keep_b and x of b", got)
	}
}

// The set's Offer carries what each server brings, by the server's name:
// the resources of each server that has them, and of no other (the
// hostile server, well behaved, declares no resources), its instructions
// and its skills.
func TestOfferReadsResources(t *testing.T) {
	plain, err := hostile.New("")
	if err != nil {
		t.Fatal(err)
	}
	ts := start(t, &config.Config{Servers: []config.Server{
		{Name: "notes", URL: serveMCP(t, demo.New())},
		{Name: "plain", URL: serve(t, plain.Handler())},
	}})
	ctx := context.Background()
	set, err := ts.Offer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if set.Servers["notes"].Resources == nil || set.Servers["plain"].Resources != nil {
		t.Fatalf("servers %v; want the notes server's resources alone", set.Servers)
	}
	res, err := set.Servers["notes"].Resources(ctx, "notes://all")
	if err != nil || !strings.HasPrefix(res.Text(), "# Notes") {
		t.Fatalf("notes://all: %q, %v", res.Text(), err)
	}
	if notes := set.Servers["notes"]; notes.Instructions == "" || len(notes.Skills) != 1 || notes.Skills[0].Name != "weekly-review" {
		t.Fatalf("the notes server's instructions and skills: %+v", notes)
	}
}
