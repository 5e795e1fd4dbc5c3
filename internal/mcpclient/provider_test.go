package mcpclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/tool"
)

func TestDiscoveryOnceAndCallsNeverList(t *testing.T) {
	p, c := inProcess(t, demo.New())
	names := p.ToolNames()
	for _, want := range []string{"add_note", "list_notes", "search_notes", "delete_note", "get_note", "note_stats", "color_swatch"} {
		if !slices.Contains(names, want) {
			t.Errorf("tool %s not discovered; have %v", want, names)
		}
	}
	h := p.Handler()
	call(t, h, "add_note", `{"title": "milk", "body": "buy milk"}`)
	call(t, h, "list_notes", ``)
	if _, err := callText(context.Background(), p, "search_notes", map[string]any{"query": "milk"}); err != nil {
		t.Fatal(err)
	}
	// A tool the listing never named, relayed: still no listing.
	_, err := p.Relay().Call(context.Background(), "no_such_tool", nil)
	if err == nil {
		t.Fatal("calling an unknown tool on the server should fail")
	}
	if n := c.get("tools/list"); n != 1 {
		t.Fatalf("tools/list sent %d times, want exactly once", n)
	}
	if n := c.get("tools/call"); n != 4 {
		t.Fatalf("tools/call sent %d times, want 4", n)
	}
}

func TestFilterAndAllowedTools(t *testing.T) {
	p, _ := inProcess(t, demo.New(), mcpclient.WithToolFilter(func(name string) bool {
		return strings.HasSuffix(name, "_notes")
	}))
	if got := strings.Join(p.ToolNames(), ","); got != "list_notes,search_notes" {
		t.Fatalf("filtered tools %s", got)
	}
	ctx := context.Background()
	// The handler serves only what is offered ...
	if _, err := p.Handler().Call(ctx, "add_note", json.RawMessage(`{"title":"a","body":"b"}`)); !errors.Is(err, tool.ErrUnserved) {
		t.Fatalf("filtered-out tool through the handler: %v, want unserved", err)
	}
	// ... while the host may still call anything.
	if _, err := callText(ctx, p, "add_note", map[string]any{"title": "a", "body": "b"}); err != nil {
		t.Fatalf("CallTool of a filtered-out tool: %v", err)
	}
	// ToolMeta and output checks use the whole listing.
	p2, _ := inProcess(t, demo.New(), mcpclient.WithAllowedTools("get_note", "note_stats", "missing_tool"))
	if got := strings.Join(p2.ToolNames(), ","); got != "get_note,note_stats" {
		t.Fatalf("allowed tools %s", got)
	}
	if defs := p2.Tools(); len(defs) != 2 || defs[1].Name != "note_stats" || len(defs[1].OutputSchema) == 0 {
		t.Fatalf("Tools() = %+v", defs)
	}
}

func TestConnectTwiceRefusedCloseIdempotent(t *testing.T) {
	p, _ := inProcess(t, demo.New())
	if err := p.Connect(context.Background()); !errors.Is(err, mcpclient.ErrConnected) {
		t.Fatalf("second Connect: %v, want ErrConnected", err)
	}
	if st, _ := p.State(); st != mcpclient.StateReady {
		t.Fatalf("not connected: %v", st)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Close()
		}()
	}
	wg.Wait()
	p.Close()
	if st, _ := p.State(); st != mcpclient.StateClosed {
		t.Fatalf("%v after Close", st)
	}
	_, err := callText(context.Background(), p, "list_notes", nil)
	if !errors.Is(err, mcpclient.ErrNotConnected) {
		t.Fatalf("call after Close: %v", err)
	}
}

func TestServerFacts(t *testing.T) {
	p, _ := inProcess(t, demo.New())
	if !strings.Contains(p.Instructions(), "notes") {
		t.Errorf("instructions %q", p.Instructions())
	}
	if info := p.ServerInfo(); info.Name != demo.Name || info.Version != demo.Version {
		t.Errorf("server info %+v", info)
	}
	if p.ProtocolVersion() == "" {
		t.Error("no protocol version")
	}
	res, err := p.ReadResource(context.Background(), "notes://all")
	if err != nil || len(res.Contents) != 1 || res.Contents[0].MIMEType != "text/markdown" {
		t.Fatalf("ReadResource: %+v, %v", res, err)
	}
	// Copies: changing what was returned changes nothing inside.
	info := p.ServerInfo()
	info.Name = "changed"
	if p.ServerInfo().Name != demo.Name {
		t.Error("ServerInfo is not a copy")
	}
}

func TestWithoutDiscovery(t *testing.T) {
	p, c := inProcess(t, outputServer(`{"type":"object","required":["n"]}`, `{"m": 1}`), mcpclient.WithoutDiscovery())
	if len(p.Tools()) != 0 || len(p.ToolMeta()) != 0 {
		t.Fatal("tools without discovery")
	}
	if _, err := p.Handler().Call(context.Background(), "shaped", nil); !errors.Is(err, tool.ErrUnserved) {
		t.Fatalf("gated handler without discovery: %v", err)
	}
	// CallTool works, and no output schema is checked.
	if _, err := p.CallToolResult(context.Background(), "shaped", nil); err != nil {
		t.Fatalf("CallToolResult without discovery: %v", err)
	}
	if c.get("tools/list") != 0 {
		t.Fatal("tools/list sent without discovery")
	}
}

// outputServer serves one tool, "shaped", with the given output schema and
// structured result (either may be empty), and one tool with _meta.
func outputServer(schema, structured string) *mcp.Server {
	s := newServer("shapes")
	t := &mcp.Tool{Name: "shaped", InputSchema: json.RawMessage(`{"type":"object"}`)}
	if schema != "" {
		t.OutputSchema = json.RawMessage(schema)
	}
	s.AddTool(t, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res := textResult("shaped")
		if structured != "" {
			res.StructuredContent = json.RawMessage(structured)
		}
		return res, nil
	})
	s.AddTool(&mcp.Tool{
		Name:        "board",
		Description: strings.Repeat("long description ", 500),
		InputSchema: json.RawMessage(`{"type":"object","x-vendor-keyword":{"kept":true},"properties":{"z":{"type":"string"},"a":{"type":"string"}}}`),
		Meta:        mcp.Meta{"ui": map[string]any{"resourceUri": "ui://board/view"}},
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult("SERVER-SECRET-RESULT"), nil
	})
	return s
}

func TestOutputSchema(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, schema, structured, wantErr string
	}{
		{"matches", `{"type":"object","required":["n"],"properties":{"n":{"type":"integer"}}}`, `{"n": 3}`, ""},
		{"breach", `{"type":"object","required":["n"],"properties":{"n":{"type":"integer"}}}`, `{"n": "three"}`, "structuredContent"},
		{"missing", `{"type":"object"}`, ``, "no structured content"},
		{"local ref", `{"$defs":{"n":{"type":"integer"}},"type":"object","properties":{"n":{"$ref":"#/$defs/n"}}}`, `{"n": "x"}`, "structuredContent"},
		{"no schema", ``, `{"anything": true}`, ""},
		// Servers declare drafts loosely; jsonschema-go would refuse to validate these.
		{"draft-04", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"integer"}}}`, `{"n": 3}`, ""},
		{"draft-07 without #", `{"$schema":"http://json-schema.org/draft-07/schema","type":"object","properties":{"n":{"type":"integer"}}}`, `{"n": "x"}`, "structuredContent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A filter that hides the tool does not stop the check.
			p, _ := inProcess(t, outputServer(tc.schema, tc.structured), mcpclient.WithAllowedTools("board"))
			_, err := p.CallToolResult(ctx, "shaped", nil)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var se *mcpclient.SchemaError
			if !errors.As(err, &se) || se.Tool != "shaped" || se.Server != "notes" || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("got %v; want a SchemaError mentioning %q", err, tc.wantErr)
			}
		})
	}
}

func TestOutputSchemaRemoteRefNeverFetched(t *testing.T) {
	var hits atomic.Int32
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, `{"type":"integer"}`)
	}))
	defer remote.Close()
	schema := `{"type":"object","properties":{"n":{"$ref":"` + remote.URL + `/n.json"}}}`
	p, _ := inProcess(t, outputServer(schema, `{"n": 1}`))
	_, err := p.CallToolResult(context.Background(), "shaped", nil)
	var se *mcpclient.SchemaError
	if !errors.As(err, &se) {
		t.Fatalf("got %v; want a SchemaError (the remote $ref cannot be used)", err)
	}
	// Through the handler the same failure is a FailedError the model reads.
	_, err = p.Handler().Call(context.Background(), "shaped", nil)
	var failed *tool.FailedError
	if !errors.As(err, &failed) || !errors.As(err, &se) {
		t.Fatalf("handler: %v; want FailedError wrapping SchemaError", err)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the schema's $ref was fetched %d times", n)
	}
}

// Schemas reach the model as the server wrote them, in process too: go-sdk
// decodes them into maps, but the order of properties is the server's.
// (This also guards the recognition of go-sdk's in-memory connection, which
// mcptool finds by its type's name.)
func TestSchemasKeepTheServersOrder(t *testing.T) {
	const in = `{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"integer"},"mid":{"type":"object","properties":{"y":{},"x":{}}}},"required":["zeta"]}`
	const out = `{"type":"object","properties":{"total":{"type":"integer"},"avg":{"type":"number"}}}`
	server := newServer("ordered")
	server.AddTool(&mcp.Tool{Name: "t", InputSchema: json.RawMessage("{\n  " + in[1:]), OutputSchema: json.RawMessage(out)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{StructuredContent: map[string]any{"total": 1, "avg": 1.5}}, nil
		})
	p, _ := inProcess(t, server)
	def := p.Tools()[0]
	if string(def.InputSchema) != in || string(def.OutputSchema) != out {
		t.Fatalf("schemas\n in  %s\n out %s\nwant the server's, compacted", def.InputSchema, def.OutputSchema)
	}
	if _, err := callText(context.Background(), p, "t", map[string]any{"zeta": "z"}); err != nil {
		t.Fatal(err)
	}
}

func TestUntrustedServer(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	p, _ := inProcess(t, outputServer("", ""), mcpclient.WithLogger(logger), mcpclient.WithMaxDescription(100))
	var board tool.Definition
	for _, d := range p.Tools() {
		if d.Name == "board" {
			board = d
		}
	}
	if n := len([]rune(board.Description)); n > 100+len(" […]") || !strings.HasSuffix(board.Description, "[…]") {
		t.Fatalf("description not cut: %d runes", n)
	}
	// The schema is kept whole, unknown keywords included.
	var schema map[string]any
	json.Unmarshal(board.InputSchema, &schema)
	if _, ok := schema["x-vendor-keyword"]; !ok || len(schema["properties"].(map[string]any)) != 2 {
		t.Fatalf("schema not whole: %s", board.InputSchema)
	}
	if meta := p.ToolMeta()["board"]; meta["ui"].(map[string]any)["resourceUri"] != "ui://board/view" {
		t.Fatalf("ToolMeta: %v", p.ToolMeta())
	}
	if _, err := callText(context.Background(), p, "board", nil); err != nil {
		t.Fatal(err)
	}
	if out := logs.String(); strings.Contains(out, "long description") || strings.Contains(out, "SERVER-SECRET-RESULT") {
		t.Fatalf("server content logged at info level:\n%s", out)
	}
}

// inServersOrder fails unless the demo's add_note schema reached p as the
// server wrote it, properties in its order (go-sdk's decoding sorts them).
func inServersOrder(t *testing.T, p *mcpclient.Provider) {
	t.Helper()
	for _, d := range p.Tools() {
		if d.Name != "add_note" {
			continue
		}
		s := string(d.InputSchema)
		if !(strings.Index(s, `"title"`) < strings.Index(s, `"body"`) && strings.Index(s, `"body"`) < strings.Index(s, `"tags"`)) {
			t.Errorf("add_note's schema lost the server's order: %s", s)
		}
		return
	}
	t.Error("the server offers no add_note, whose schema's order is checked")
}

func TestConfigErrors(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		p      *mcpclient.Provider
		option string
	}{
		{mcpclient.FromURL("ftp://example.com/mcp", mcpclient.WithName("files")), "url"},
		{mcpclient.FromURL("http://127.0.0.1:1/mcp", mcpclient.WithName("files"), mcpclient.WithTransport("carrier-pigeon")), "transport"},
		{mcpclient.FromURL("http://127.0.0.1:1/mcp", mcpclient.WithName("files"), mcpclient.WithTransport(mcpclient.Stdio)), "transport"},
		{mcpclient.FromURL("http://127.0.0.1:1/mcp", mcpclient.WithName("files"), mcpclient.WithAllowedTools()), "allowed tools"},
		{mcpclient.FromURL("http://127.0.0.1:1/mcp", mcpclient.WithName("files"), mcpclient.WithEnv(map[string]string{"A": "b"})), "env/dir"},
		{mcpclient.FromCommand("", nil, mcpclient.WithName("files")), "command"},
		{mcpclient.FromURL("http://127.0.0.1:1/mcp", mcpclient.WithName("files"), mcpclient.WithMaxMessageSize(-1)), "max message size"},
		{mcpclient.FromCommand("server", nil, mcpclient.WithName("files"), mcpclient.WithMaxPages(-1)), "max pages"},
		{mcpclient.FromCommand("server", nil, mcpclient.WithName("files"), mcpclient.WithMaxListing(-1, 0)), "max listing items"},
		{mcpclient.FromCommand("server", nil, mcpclient.WithName("files"), mcpclient.WithMaxListing(0, -1)), "max listing bytes"},
		{mcpclient.FromCommand("server", nil, mcpclient.WithName("files"), mcpclient.WithMaxDescription(-1)), "max description"},
		{mcpclient.FromCommand("server", nil, mcpclient.WithName("files"), mcpclient.WithReconnect(mcpclient.Reconnect{MinDelay: -1})), "reconnect"},
	} {
		err := tc.p.Connect(ctx)
		var ce *mcpclient.ConfigError
		if !errors.As(err, &ce) || ce.Option != tc.option || ce.Server != "files" || !strings.Contains(err.Error(), `server "files"`) {
			t.Errorf("got %v; want a ConfigError for %q naming the server", err, tc.option)
		}
		if st, _ := tc.p.State(); st == mcpclient.StateReady {
			t.Error("connected after a config error")
		}
	}
}

// A URL without its scheme, a common first mistake, is refused saying what
// a URL needs, with one to copy; the URL itself is not quoted (it may hold a
// key in its query).
func TestURLWithoutScheme(t *testing.T) {
	for _, u := range []string{"127.0.0.1:3001/mcp?key=sk-1", "localhost:3001/mcp?key=sk-1", "example.com/mcp?key=sk-1"} {
		err := mcpclient.FromURL(u).Connect(context.Background())
		var ce *mcpclient.ConfigError
		if !errors.As(err, &ce) || ce.Option != "url" || !strings.Contains(err.Error(), "want http or https and a host, as in http://127.0.0.1:3001") {
			t.Errorf("FromURL(%q): %v; want a ConfigError for the url saying what a URL needs", u, err)
		}
		if err != nil && strings.Contains(err.Error(), "sk-1") {
			t.Errorf("FromURL(%q): %v quotes the URL's query", u, err)
		}
	}
}

// Zero in an option is its default, as if the option were not given.
func TestZeroIsDefault(t *testing.T) {
	p, _ := inProcess(t, outputServer("", ""), mcpclient.WithMaxPages(0), mcpclient.WithMaxDescription(0),
		mcpclient.WithMaxMessageSize(0), mcpclient.WithConnectTimeout(0), mcpclient.WithRequestTimeout(0), mcpclient.WithCallTimeout(0))
	for _, d := range p.Tools() {
		if n := utf8.RuneCountInString(strings.TrimSuffix(d.Description, " […]")); d.Name == "board" && (n > mcpclient.DefaultMaxDescription || n < mcpclient.DefaultMaxDescription*4/5) {
			t.Fatalf("description of %d characters; want the default cut", utf8.RuneCountInString(d.Description))
		}
	}
	if got := call(t, p.Handler(), "shaped", `{}`).Text(); got != "shaped" {
		t.Fatalf("call: %q", got)
	}
}

func TestRequestTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, _ := inProcess(t, demo.New(), mcpclient.WithRequestTimeout(50*time.Millisecond))
		_, err := p.Handler().Call(context.Background(), "slow_count", json.RawMessage(`{"to": 2, "delay_ms": 51}`))
		var te *mcpclient.TransportError
		if !errors.As(err, &te) || !te.Timeout() || !strings.Contains(err.Error(), `tools/call "slow_count"`) {
			t.Fatalf("got %v; want a timeout TransportError naming the tool", err)
		}
	})
}
