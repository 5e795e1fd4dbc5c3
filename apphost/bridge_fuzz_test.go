package apphost

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/handle"
	"github.com/mcpbridge/mcpbridge/mcptool"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
)

// Whatever a frame sends, the bridge answers without failing: a reply
// carries the request's own id, an action is one the page knows, and no
// message reaches a tool apps may not call.
func FuzzBridge(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ui/initialize","params":{"appCapabilities":{"availableDisplayModes":["inline"]}}}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"data","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"admin"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"ui/message","params":{"role":"user","content":[{"type":"text","text":"hi"}]}}`,
		`{"jsonrpc":"2.0","id":4,"method":"ui/open-link","params":{"url":"https://example.com/"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"ui/request-display-mode","params":{"mode":"fullscreen"}}`,
		`{"jsonrpc":"2.0","id":6,"method":"ui/update-model-context","params":{"content":[{"type":"text","text":"x"}],"structuredContent":{"a":1}}}`,
		`{"jsonrpc":"2.0","method":"ui/notifications/size-changed","params":{"width":1,"height":2}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"x":1}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"ui://fuzz/app.html"}}`,
	} {
		f.Add([]byte(seed))
	}
	var adminCalls atomic.Int64
	s := mcp.NewServer(&mcp.Implementation{Name: "fuzz", Version: "1"}, nil)
	obj := json.RawMessage(`{"type":"object"}`)
	ui := func(vis ...string) mcp.Meta {
		return mcp.Meta{"ui": map[string]any{"resourceUri": "ui://fuzz/app.html", "visibility": vis}}
	}
	s.AddTool(&mcp.Tool{Name: "data", InputSchema: obj, Meta: ui("app")}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "data"}}}, nil
	})
	s.AddTool(&mcp.Tool{Name: "admin", InputSchema: obj, Meta: ui("model")}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		adminCalls.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "admin"}}}, nil
	})
	s.AddResource(&mcp.Resource{URI: "ui://fuzz/app.html", Name: "app", MIMEType: mcpclient.AppMIMEType},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "ui://fuzz/app.html", MIMEType: mcpclient.AppMIMEType, Text: "<p>app</p>"}}}, nil
		})
	p := mcpclient.FromServer("fuzz", s, mcpclient.WithApps())
	if err := p.Connect(context.Background()); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { p.Close() })
	h := New(Config{Servers: func(string) (*mcptool.Provider, bool) { return handle.Wrap[mcptool.Provider](p), true }, Logger: slog.New(slog.DiscardHandler)}).(*host)
	kinds := []string{"initialized", "message", "context", "open-link", "display-mode", "size"}

	f.Fuzz(func(t *testing.T, msg []byte) {
		fr := &frame{p: p, server: "fuzz", tool: "data", app: &mcpclient.AppResource{URI: "ui://fuzz/app.html"},
			handles: handles{Message: true, ModelContext: true, Links: true}, inflight: make(chan struct{}, maxInFlight)}
		a := h.handle(context.Background(), fr, msg)
		if a.Reply != nil {
			var m struct{ ID json.RawMessage }
			json.Unmarshal(msg, &m)
			if a.Reply.JSONRPC != "2.0" || string(a.Reply.ID) != string(m.ID) || !validID(a.Reply.ID) || (a.Reply.Error == nil) == (a.Reply.Result == nil) {
				t.Fatalf("reply %+v to %s", a.Reply, msg)
			}
			if _, err := json.Marshal(a); err != nil {
				t.Fatalf("the answer to %s does not encode: %v", msg, err)
			}
		}
		if a.Action != nil && !slices.Contains(kinds, a.Action.Kind) {
			t.Fatalf("action %+v", a.Action)
		}
		if n := adminCalls.Load(); n != 0 {
			t.Fatalf("%s reached a tool apps may not call", msg)
		}
	})
}
