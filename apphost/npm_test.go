package apphost_test

import (
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/apphost"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/testing/browsertest"
	"github.com/mcpbridge/mcpbridge/internal/testing/npmtest"
)

// The extension's own example app, built with its SDK: it renders the
// time its tool returned; its button calls the tool again through the
// bridge and shows the new result; its message reaches the conversation;
// its log reaches the host's log; the link it asks to open waits for the
// user, who declines.
func TestBrowserBasicApp(t *testing.T) {
	p := connected(t, mcpclient.FromCommand(npmtest.Bin(t, "mcp-server-basic-vanillajs"), []string{"--stdio"}, mcpclient.WithApps(), mcpclient.WithName("basic")))
	base, logs := serveHost(t, apphost.Config{}, map[string]*mcpclient.Provider{"basic": p})
	tab, frame := open(t, base, "basic", "get-time", "{}")
	const isTime = `/^\d{4}-\d\d-\d\dT/.test(document.getElementById("server-time").textContent)`
	browsertest.Wait[bool](t, frame, isTime)

	// The button's call: the time is set aside first, so that only a new
	// result shows one again.
	browsertest.Wait[bool](t, frame, `(document.getElementById("server-time").textContent = "asked") !== ""`)
	browsertest.Click(t, frame, "#get-time-btn")
	browsertest.Wait[bool](t, frame, isTime)

	browsertest.Click(t, frame, "#send-message-btn")
	if got := browsertest.Wait[string](t, tab, `window.messages[0]`); got != "This is message text." {
		t.Errorf("the conversation got %q", got)
	}
	browsertest.Click(t, frame, "#send-log-btn")
	browsertest.Click(t, frame, "#open-link-btn")
	if got := browsertest.Wait[string](t, tab, `document.querySelector(".mcp-app-link span")?.textContent`); got != "The app asks to open https://modelcontextprotocol.io/ (modelcontextprotocol.io)" {
		t.Errorf("the link asked: %q", got)
	}
	browsertest.Click(t, tab, ".mcp-app-link-cancel")
	browsertest.Wait[bool](t, tab, `!document.querySelector(".mcp-app-link")`)
	for _, line := range []string{`msg="app calls a tool" server=basic app=get-time tool=get-time`, `msg="app log" server=basic tool=get-time level=info logger="" data="This is log text."`} {
		if !strings.Contains(logs.String(), line) {
			t.Errorf("the host's log lacks %s:\n%s", line, logs)
		}
	}
}

// The example system monitor renders the system its tool describes, then
// polls a tool kept for the app alone (poll-system-stats, "visibility":
// ["app"]) through the bridge, until the user stops it.
func TestBrowserSystemMonitor(t *testing.T) {
	p := connected(t, mcpclient.FromCommand(npmtest.Bin(t, "mcp-system-monitor-server"), []string{"--stdio"}, mcpclient.WithApps(), mcpclient.WithName("monitor")))
	if names := strings.Join(p.ToolNames(), " "); strings.Contains(names, "poll-system-stats") {
		t.Fatalf("the model is offered the app's own tool: %s", names)
	}
	base, logs := serveHost(t, apphost.Config{}, map[string]*mcpclient.Provider{"monitor": p})
	_, frame := open(t, base, "monitor", "get-system-info", "{}")
	browsertest.Wait[bool](t, frame, `document.getElementById("info-platform").textContent.startsWith("linux")`)
	browsertest.Wait[bool](t, frame, `/^\d+%$/.test(document.getElementById("memory-percent").textContent)`)
	browsertest.Click(t, frame, "#poll-toggle-btn")
	browsertest.Wait[bool](t, frame, `document.getElementById("poll-toggle-btn").textContent === "Start"`)
	if line := `msg="app calls a tool" server=monitor app=get-system-info tool=poll-system-stats`; !strings.Contains(logs.String(), line) {
		t.Errorf("the host's log lacks %s:\n%s", line, logs)
	}
}
