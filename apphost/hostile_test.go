package apphost_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/apphost"
	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/testing/browsertest"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
	"github.com/mcpbridge/mcpbridge/policy"
)

// probeHTML is an app that tries to reach what it may not, and says what
// happened in one ui/message: the host page (its DOM, its globals), the
// storage and cookies of an origin, a fetch to an origin it did not declare
// (HOST, the page's own) and to one it did (DECLARED), the camera it asked
// for and the microphone it did not, and calls of tools that are not its
// own to call.
const probeHTML = `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><p id="status">probing</p><script>
` + hostile.AppRequestJS + `const violations = [];
document.addEventListener("securitypolicyviolation", (e) => violations.push(e.violatedDirective + " " + e.blockedURI));
async function attempt(fn) { try { return await fn(); } catch (e) { return (e && (e.name || "")) + ": " + (e && e.message); } }
async function call(name) { return attempt(async () => { const r = await request("tools/call", { name, arguments: {} }); return "ran: " + r.content[0].text; }); }
(async () => {
  await request("ui/initialize", { appInfo: { name: "probe", version: "1" }, appCapabilities: {}, protocolVersion: "2026-01-26" });
  window.parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} }, "*");
  const r = {};
  r.top = await attempt(() => window.top.document.title);
  r.secret = await attempt(() => window.parent.hostSecret);
  r.storage = await attempt(() => String(localStorage.length));
  r.cookie = await attempt(() => document.cookie);
  r.undeclared = await attempt(async () => (await fetch("HOST/")).status);
  r.declared = await attempt(async () => await (await fetch("DECLARED/")).text());
  r.violations = violations.slice();
  r.camera = String(document.featurePolicy.allowsFeature("camera"));
  r.microphone = String(document.featurePolicy.allowsFeature("microphone"));
  r.own = await call("probe_data");
  r.modelOnly = await call("probe_admin");
  r.otherServer = await call("add_note");
  r.alias = await call("mcp__demo__add_note");
  r.denied = await call("probe_wipe");
  await request("ui/message", { role: "user", content: [{ type: "text", text: JSON.stringify(r) }] });
  document.getElementById("status").textContent = "done";
})();
</script></body></html>`

// probeServer serves the probe app: probe, the tool with the app;
// probe_data, the app's own; probe_admin, the model's alone; probe_wipe,
// the app's but denied by the host's policy. Its app may connect to
// declared, and asks for the camera.
func probeServer(host, declared string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "probe", Version: "1"}, nil)
	text := func(s string) mcp.ToolHandler {
		return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}, nil
		}
	}
	obj := json.RawMessage(`{"type":"object"}`)
	ui := func(vis ...string) mcp.Meta {
		m := map[string]any{"resourceUri": "ui://probe/app.html"}
		if vis != nil {
			m["visibility"] = vis
		}
		return mcp.Meta{"ui": m}
	}
	s.AddTool(&mcp.Tool{Name: "probe", InputSchema: obj, Meta: ui()}, text("probe"))
	s.AddTool(&mcp.Tool{Name: "probe_data", InputSchema: obj, Meta: ui("app")}, text("data"))
	s.AddTool(&mcp.Tool{Name: "probe_admin", InputSchema: obj, Meta: ui("model")}, text("admin"))
	s.AddTool(&mcp.Tool{Name: "probe_wipe", InputSchema: obj, Meta: ui("app")}, text("wiped"))
	html := strings.NewReplacer("HOST", host, "DECLARED", declared).Replace(probeHTML)
	s.AddResource(&mcp.Resource{URI: "ui://probe/app.html", Name: "probe", MIMEType: mcpclient.AppMIMEType},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "ui://probe/app.html", MIMEType: mcpclient.AppMIMEType, Text: html,
				Meta: mcp.Meta{"ui": map[string]any{"csp": map[string]any{"connectDomains": []string{declared}}, "permissions": map[string]any{"camera": map[string]any{}}}}}}}, nil
		})
	return s
}

// An app reaches nothing of the page that hosts it, connects only where
// its server declared, and calls only its own server's tools that apps may
// call, past the host's policy: each attempt is refused, saying why, and
// what is allowed works.
func TestBrowserAppIsolation(t *testing.T) {
	declared := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Write([]byte("pong"))
	}))
	t.Cleanup(declared.Close)
	pol, err := policy.New(policy.Config{Deny: []string{"probe_wipe"}})
	if err != nil {
		t.Fatal(err)
	}
	servers := map[string]*mcpclient.Provider{"demo": connected(t, mcpclient.FromServer("demo", demo.New(), mcpclient.WithApps()))}
	base, logs := serveHost(t, apphost.Config{Policy: pol}, servers)
	servers["probe"] = connected(t, mcpclient.FromServer("probe", probeServer(base, declared.URL), mcpclient.WithApps()))

	tab, frame := open(t, base, "probe", "probe", "{}")
	browsertest.Wait[bool](t, frame, `document.getElementById("status").textContent === "done"`)
	var r map[string]any
	if err := json.Unmarshal([]byte(browsertest.Wait[string](t, tab, `window.messages[0]`)), &r); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"top":         "SecurityError: ",
		"secret":      "SecurityError: ",
		"storage":     "SecurityError: ",
		"cookie":      "SecurityError: ",
		"undeclared":  "TypeError: Failed to fetch",
		"declared":    "pong",
		"own":         "ran: data",
		"modelOnly":   `: tools/call: the tool "probe_admin" is not visible to apps`,
		"otherServer": `: tools/call: server "probe" has no tool "add_note" an app may call`,
		"alias":       `: tools/call: server "probe" has no tool "mcp__demo__add_note" an app may call`,
		"camera":      "true",
		"microphone":  "false",
		"denied":      `: tools/call: tool "mcp__probe__probe_wipe" refused: the tool "probe_wipe" is denied by policy pattern "probe_wipe"`,
	} {
		if got, _ := r[key].(string); !strings.HasPrefix(got, want) {
			t.Errorf("%s: %q, want %q...", key, got, want)
		}
	}
	if v := r["violations"]; len(v.([]any)) != 1 || !strings.HasPrefix(v.([]any)[0].(string), "connect-src "+base) {
		t.Errorf("CSP violations %v; want the undeclared fetch's", v)
	}
	for _, refusal := range []string{`why="tools/call: the tool \"probe_admin\" is not visible to apps`, `mcp__demo__add_note`, `probe_wipe`} {
		if !strings.Contains(logs.String(), refusal) {
			t.Errorf("the log lacks the refusal %s:\n%s", refusal, logs)
		}
	}
}

// A page of another site that a browser reaches this host by (DNS
// rebinding, here a name under .localhost, which Chromium resolves to
// loopback itself) gets nothing of the host: not its script, not an app,
// not a call, though the page is same-origin with itself.
func TestBrowserReboundNameRefused(t *testing.T) {
	base, _, _ := probeHost(t, apphost.Config{})
	rebound := strings.Replace(base, "127.0.0.1", "rebound.localhost", 1)
	tab := browsertest.Tab(t)
	browsertest.Do(t, tab, chromedp.Navigate(rebound+"/?server=probe&tool=probe"))
	browsertest.Wait[bool](t, tab, `document.readyState === "complete"`)
	if defined := browsertest.Wait[string](t, tab, `typeof McpApps`); defined != "undefined" {
		t.Errorf("the page at %s has the host's script: McpApps is %s", rebound, defined)
	}
	status := browsertest.Wait[string](t, tab, `fetch("/apps/open", {method: "POST", headers: {"Content-Type": "application/json"},
  body: JSON.stringify({server: "probe", tool: "probe"})}).then(async (r) => r.status + " " + await r.text())`)
	if !strings.HasPrefix(status, "403 ") {
		t.Errorf("the page at %s opened an app: %s", rebound, status)
	}
}
