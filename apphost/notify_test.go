package apphost_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/apphost"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/testing/browsertest"
)

// recorderHTML is an app that lists the notifications the host sends it,
// and, asked to tear down, says the list (ui/message) before it answers.
const recorderHTML = `<!DOCTYPE html><html><body><p id="got"></p><script>
const got = [];
let nextID = 0;
const pending = new Map();
function request(method, params) {
  const id = ++nextID;
  return new Promise((resolve) => { pending.set(id, resolve); window.parent.postMessage({ jsonrpc: "2.0", id, method, params }, "*"); });
}
window.addEventListener("message", async (e) => {
  const m = e.data;
  if (m.id !== undefined && pending.has(m.id)) { pending.get(m.id)(m); pending.delete(m.id); return; }
  if (m.method === "ui/resource-teardown") {
    await request("ui/message", { role: "user", content: { type: "text", text: got.join(",") } });
    window.parent.postMessage({ jsonrpc: "2.0", id: m.id, result: {} }, "*");
    return;
  }
  let detail = "";
  if (m.params && m.params.arguments) detail = JSON.stringify(m.params.arguments);
  if (m.params && m.params.theme) detail = m.params.theme;
  if (m.params && m.params.reason) detail = m.params.reason;
  if (m.params && m.params.displayMode) detail = m.params.displayMode;
  if (m.params && m.params.content) detail = m.params.content[0].text;
  got.push(m.method.replace("ui/notifications/", "") + " " + detail);
  document.getElementById("got").textContent = got.length;
});
request("ui/initialize", { appInfo: { name: "recorder", version: "1" }, appCapabilities: {}, protocolVersion: "2026-01-26" })
  .then(() => window.parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} }, "*"));
</script></body></html>`

// What the host tells an app reaches it, in order: the call's arguments and
// result once it is initialized, the display mode it asked for and the one
// the user went back to, a change of context, partial arguments, a
// cancellation; and before its frame goes, the teardown, which the host
// waits for the app to answer.
func TestBrowserHostNotifications(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "recorder", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "record", InputSchema: json.RawMessage(`{"type":"object"}`), Meta: mcp.Meta{"ui": map[string]any{"resourceUri": "ui://recorder/app.html"}}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "recorded"}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "ui://recorder/app.html", Name: "recorder", MIMEType: mcpclient.AppMIMEType},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "ui://recorder/app.html", MIMEType: mcpclient.AppMIMEType, Text: recorderHTML}}}, nil
		})
	base, _ := serveHost(t, apphost.Config{}, map[string]*mcpclient.Provider{"recorder": connected(t, mcpclient.FromServer("recorder", s, mcpclient.WithApps()))})
	tab, frame := open(t, base, "recorder", "record", `{"q":1}`)
	browsertest.Wait[bool](t, frame, `document.getElementById("got").textContent === "2"`)
	browsertest.Wait[bool](t, frame, `(request("ui/request-display-mode", {mode: "fullscreen"}).then((r) => { window.mode = r.result.mode; }), true)`)
	if mode := browsertest.Wait[string](t, frame, `window.mode`); mode != "fullscreen" {
		t.Errorf("the mode set: %q", mode)
	}
	browsertest.Click(t, tab, ".mcp-app-inline")
	browsertest.Wait[bool](t, frame, `document.getElementById("got").textContent === "4"`)
	browsertest.Wait[bool](t, tab, `(app.contextChanged({theme: "dark"}), app.inputPartial({q: 2}), app.cancelled("stopped"),
		app.teardown("done").then((answered) => { window.answered = answered; }), true)`)
	if answered := browsertest.Wait[string](t, tab, `window.answered !== undefined && !document.querySelector("iframe") && String(window.answered)`); answered != "true" {
		t.Errorf("the frame went without the app's answer to the teardown (answered: %s)", answered)
	}
	const want = `tool-input {"q":1},tool-result recorded,host-context-changed fullscreen,host-context-changed inline,host-context-changed dark,tool-input-partial {"q":2},tool-cancelled stopped`
	if got := browsertest.Wait[string](t, tab, `window.messages[0]`); got != want {
		t.Errorf("the app got\n%s\nwant\n%s", got, want)
	}
}
