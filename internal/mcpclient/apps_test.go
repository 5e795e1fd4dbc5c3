package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/testing/npmtest"
	"github.com/mcpbridge/mcpbridge/tool"
)

const boardHTML = `<!DOCTYPE html><html><head><title>board</title></head><body>board</body></html>`

// appServer serves an MCP App: board, a tool with an interface, whose
// answer says whether the client declared the extension; board_data, a
// tool for the app alone; and the interface's resource, whose _meta.ui
// is uiMeta (none if nil), listed with listedMeta.
func appServer(uiMeta, listedMeta map[string]any) *mcp.Server {
	s := newServer("apps")
	s.AddTool(&mcp.Tool{Name: "board", InputSchema: json.RawMessage(`{"type":"object"}`),
		Meta: mcp.Meta{"ui": map[string]any{"resourceUri": "ui://board/view.html"}}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			_, declared := req.ClientCapabilities().Extensions[mcpclient.AppsExtension]
			text := "no apps"
			if declared {
				data, _ := json.Marshal(req.ClientCapabilities().Extensions[mcpclient.AppsExtension])
				text = "apps " + string(data)
			}
			return textResult(text), nil
		})
	s.AddTool(&mcp.Tool{Name: "board_data", InputSchema: json.RawMessage(`{"type":"object"}`),
		Meta: mcp.Meta{"ui": map[string]any{"resourceUri": "ui://board/view.html", "visibility": []string{"app"}}}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return textResult(`{"notes":[]}`), nil
		})
	var listed mcp.Meta
	if listedMeta != nil {
		listed = mcp.Meta{"ui": listedMeta}
	}
	s.AddResource(&mcp.Resource{URI: "ui://board/view.html", Name: "board", MIMEType: mcpclient.AppMIMEType, Meta: listed},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			c := &mcp.ResourceContents{URI: "ui://board/view.html", MIMEType: mcpclient.AppMIMEType, Text: boardHTML}
			if uiMeta != nil {
				c.Meta = mcp.Meta{"ui": uiMeta}
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
		})
	return s
}

// A tool an app keeps for itself is listed but never offered to a model,
// while the host can still call it and read its _meta; a tool with an
// interface says where it is.
func TestAppOnlyToolsAreNotOffered(t *testing.T) {
	p, _ := inProcess(t, appServer(nil, nil))
	ctx := context.Background()
	if names := p.ToolNames(); len(names) != 1 || names[0] != "board" {
		t.Fatalf("offered %v; want board alone", names)
	}
	set, err := p.Offer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Definitions) != 1 || set.Definitions[0].App().ResourceURI != "ui://board/view.html" {
		t.Fatalf("offer %+v", set.Definitions)
	}
	for _, h := range []tool.Handler{set.Handler, p.Handler()} {
		if _, err := h.Call(ctx, "board_data", nil); !errors.Is(err, tool.ErrUnserved) {
			t.Fatalf("the handler served the app's own tool: %v", err)
		}
	}
	res, err := p.CallToolResult(ctx, "board_data", nil)
	if err != nil || mcpclient.ToReply(res).Text() != `{"notes":[]}` {
		t.Fatalf("the host's call of the app's tool: %v, %v", res, err)
	}
	if meta := p.ToolMeta()["board_data"]; meta == nil {
		t.Fatalf("ToolMeta leaves out the app's tool: %v", p.ToolMeta())
	}
}

// WithApps declares the extension with the one MIME type the host renders;
// without it nothing is claimed.
func TestWithAppsDeclaresTheExtension(t *testing.T) {
	ctx := context.Background()
	p, _ := inProcess(t, appServer(nil, nil), mcpclient.WithApps())
	if got, err := callText(ctx, p, "board", nil); err != nil || got != `apps {"mimeTypes":["text/html;profile=mcp-app"]}` {
		t.Fatalf("with apps: %q, %v", got, err)
	}
	p, _ = inProcess(t, appServer(nil, nil))
	if got, err := callText(ctx, p, "board", nil); err != nil || got != "no apps" {
		t.Fatalf("without: %q, %v", got, err)
	}
}

func TestReadApp(t *testing.T) {
	ctx := context.Background()
	ui := map[string]any{
		"csp":           map[string]any{"connectDomains": []string{"https://api.example.com"}, "resourceDomains": []string{"https://cdn.example.com"}},
		"permissions":   map[string]any{"camera": map[string]any{}, "clipboardWrite": map[string]any{}, "microphone": false},
		"domain":        "a904.example-content.com",
		"prefersBorder": true,
	}
	want := mcpclient.AppCSP{ConnectDomains: []string{"https://api.example.com"}, ResourceDomains: []string{"https://cdn.example.com"}}
	for _, tc := range []struct {
		name           string
		content, entry map[string]any
	}{
		{"from the content", ui, map[string]any{"domain": "listed.example.com"}},
		{"from the listing", nil, ui},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := inProcess(t, appServer(tc.content, tc.entry))
			app, err := p.ReadApp(ctx, "ui://board/view.html")
			if err != nil {
				t.Fatal(err)
			}
			if app.HTML != boardHTML || app.URI != "ui://board/view.html" {
				t.Fatalf("app %+v", app)
			}
			if strings.Join(app.CSP.ConnectDomains, " ") != strings.Join(want.ConnectDomains, " ") ||
				strings.Join(app.CSP.ResourceDomains, " ") != strings.Join(want.ResourceDomains, " ") {
				t.Fatalf("CSP %+v", app.CSP)
			}
			if app.Permissions != (mcpclient.AppPermissions{Camera: true, ClipboardWrite: true}) {
				t.Fatalf("permissions %+v; a value that is not an object asks for nothing", app.Permissions)
			}
			if app.Domain != "a904.example-content.com" || app.PrefersBorder == nil || !*app.PrefersBorder {
				t.Fatalf("domain %q, border %v", app.Domain, app.PrefersBorder)
			}
		})
	}
	// Neither says anything: the defaults, which deny.
	p, _ := inProcess(t, appServer(nil, nil))
	app, err := p.ReadApp(ctx, "ui://board/view.html")
	if err != nil || app.CSP.Policy() != (mcpclient.AppCSP{}).Policy() || app.Permissions != (mcpclient.AppPermissions{}) || app.PrefersBorder != nil {
		t.Fatalf("no _meta.ui: %+v, %v", app, err)
	}
}

// What a server sends as an app is checked before a host renders it.
func TestReadAppRefusals(t *testing.T) {
	ctx := context.Background()
	s := newServer("apps")
	add := func(uri, mime string, c mcp.ResourceContents) {
		c.URI, c.MIMEType = uri, mime
		s.AddResource(&mcp.Resource{URI: uri, Name: uri},
			func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{&c}}, nil
			})
	}
	add("ui://plain", "text/html", mcp.ResourceContents{Text: boardHTML})
	add("ui://blob", mcpclient.AppMIMEType, mcp.ResourceContents{Blob: []byte(boardHTML)})
	add("ui://binary", mcpclient.AppMIMEType, mcp.ResourceContents{Blob: []byte{0xff, 0xfe}})
	add("ui://bad-meta", mcpclient.AppMIMEType, mcp.ResourceContents{Text: boardHTML, Meta: mcp.Meta{"ui": map[string]any{"csp": "anything"}}})
	add("ui://spaced", "text/html; profile=mcp-app", mcp.ResourceContents{Text: boardHTML})
	p, _ := inProcess(t, s)

	var ce *mcpclient.ConfigError
	if _, err := p.ReadApp(ctx, "https://example.com/app.html"); !errors.As(err, &ce) {
		t.Fatalf("a URI that is not ui://: %v", err)
	}
	for uri, want := range map[string]string{
		"ui://plain":    "an MCP App's HTML is text/html;profile=mcp-app",
		"ui://binary":   "not UTF-8",
		"ui://bad-meta": "_meta.ui",
	} {
		var pe *mcpclient.ProtocolError
		if _, err := p.ReadApp(ctx, uri); !errors.As(err, &pe) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), uri) {
			t.Errorf("%s: %v; want a ProtocolError naming it and saying %q", uri, err, want)
		}
	}
	for _, uri := range []string{"ui://blob", "ui://spaced"} {
		if app, err := p.ReadApp(ctx, uri); err != nil || app.HTML != boardHTML {
			t.Errorf("%s: %v", uri, err)
		}
	}
}

// The policy denies by default and names only what was declared; server
// text that tries to add a directive or a keyword is left out.
func TestAppCSPPolicy(t *testing.T) {
	const deny = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:; media-src data:; connect-src 'none'; frame-src 'none'; base-uri 'self'; object-src 'none'"
	if got := (mcpclient.AppCSP{}).Policy(); got != deny {
		t.Fatalf("empty:\n got %s\nwant %s", got, deny)
	}
	c := mcpclient.AppCSP{
		ConnectDomains:  []string{"https://api.example.com", "wss://live.example.com:8443", "https://x.example.com; script-src *", "*", "'unsafe-eval'", "https://evil.example.com'"},
		ResourceDomains: []string{"https://*.cdn.example.com/assets/", "data:", "javascript:alert(1)"},
		FrameDomains:    []string{"https://www.youtube.com"},
		BaseURIDomains:  []string{"https://cdn.example.com", "https://a.example.com,https://b.example.com"},
	}
	const want = "default-src 'none'; script-src 'unsafe-inline' https://*.cdn.example.com/assets/; style-src 'unsafe-inline' https://*.cdn.example.com/assets/; img-src data: https://*.cdn.example.com/assets/; font-src data: https://*.cdn.example.com/assets/; media-src data: https://*.cdn.example.com/assets/; connect-src https://api.example.com wss://live.example.com:8443; frame-src https://www.youtube.com; base-uri https://cdn.example.com; object-src 'none'"
	if got := c.Policy(); got != want {
		t.Fatalf("declared:\n got %s\nwant %s", got, want)
	}
}

// The allowlist of an app's document names the origins it declared for
// requests, with the schemes CSP lets each match, and nothing else: not
// what the policy leaves out, not its base URI; WebRTC is blocked; nothing
// declared allows nothing.
func TestConnectionAllowlist(t *testing.T) {
	if got := mcpclient.ConnectionAllowlist(mcpclient.AppCSP{}); got != "();webrtc=block" {
		t.Errorf("empty: %s", got)
	}
	c := mcpclient.AppCSP{
		ConnectDomains:  []string{"https://api.example.com", "wss://live.example.com:8443", "https://x.example.com; script-src *", "*", "'unsafe-eval'", "http://127.0.0.1:*"},
		ResourceDomains: []string{"https://*.cdn.example.com/assets/", "data:", "https://api.example.com/static"},
		FrameDomains:    []string{"https://www.youtube.com"},
		BaseURIDomains:  []string{"https://base.example.com"},
	}
	const want = `("https://api.example.com/*" "wss://api.example.com/*" "wss://live.example.com:8443/*" "https://live.example.com:8443/*" ` +
		`"http://127.0.0.1:*/*" "https://127.0.0.1:*/*" "ws://127.0.0.1:*/*" "wss://127.0.0.1:*/*" ` +
		`"https://*.cdn.example.com/*" "wss://*.cdn.example.com/*" "https://www.youtube.com/*" "wss://www.youtube.com/*");webrtc=block`
	if got := mcpclient.ConnectionAllowlist(c); got != want {
		t.Errorf("declared:\n got %s\nwant %s", got, want)
	}
}

// The extension's own example server: its tool names its interface, which
// reads as an app whose frame asks for nothing.
func TestBasicAppServer(t *testing.T) {
	bin := npmtest.Bin(t, "mcp-server-basic-vanillajs")
	p := mcpclient.FromCommand(bin, []string{"--stdio"}, mcpclient.WithApps())
	ctx := context.Background()
	if err := p.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var uri string
	for _, d := range p.Tools() {
		if d.Name == "get-time" {
			uri = d.App().ResourceURI
		}
	}
	if uri != "ui://get-time/mcp-app.html" {
		t.Fatalf("get-time's app: %q in %+v", uri, p.Tools())
	}
	app, err := p.ReadApp(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(app.HTML, "<html") || len(app.HTML) < 1000 || app.CSP.Policy() != (mcpclient.AppCSP{}).Policy() {
		t.Fatalf("%d bytes of HTML, policy %s", len(app.HTML), app.CSP.Policy())
	}
	res, err := p.CallToolResult(ctx, "get-time", nil)
	if err != nil || res.IsError || !strings.Contains(mustJSON(t, res.StructuredContent), `"time"`) {
		t.Fatalf("get-time: %+v, %v", res, err)
	}
}
