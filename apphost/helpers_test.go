package apphost_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/handle"
	"github.com/mcpbridge/mcpbridge/mcptool"

	"github.com/mcpbridge/mcpbridge/apphost"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
)

// testPage is a host page as a web agent would write one: a conversation,
// and the app of the tool its query names (server, tool, args), rendered
// with the host's call of it. What the app says into the conversation
// (ui/message), and the context it gives the model, are kept in the page.
const testPage = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>host</title>
<style>body{font:14px system-ui;margin:8px} .mcp-app-border{border:1px solid #ccc;border-radius:6px}</style></head>
<body>
<div id="conversation"></div>
<div id="apps"></div>
<script src="/apps/host.js"></script>
<script>
window.hostSecret = "the page's secret";
const q = new URLSearchParams(location.search);
window.messages = [];
window.contexts = [];
McpApps.render(document.getElementById("apps"), {
  server: q.get("server"), tool: q.get("tool"), arguments: JSON.parse(q.get("args") || "{}"), call: true,
  onMessage(text) {
    window.messages.push(text);
    const p = document.createElement("p");
    p.className = "message";
    p.textContent = text;
    document.getElementById("conversation").append(p);
    return true;
  },
  onContext(ctx) { window.contexts.push(ctx); },
}).then((app) => { window.app = app; }, (err) => { window.openError = String(err.message || err); });
</script>
</body></html>`

// serveHost serves testPage at / and a host of the apps of servers under
// /apps/, on a loopback listener; it returns the base URL and what the
// host logged.
func serveHost(t *testing.T, cfg apphost.Config, servers map[string]*mcpclient.Provider) (string, *proctest.Buffer) {
	t.Helper()
	l := &proctest.Buffer{}
	cfg.Logger = slog.New(slog.NewTextHandler(l, nil))
	cfg.Servers = func(name string) (*mcptool.Provider, bool) {
		p, ok := servers[name]
		return handle.Wrap[mcptool.Provider](p), ok
	}
	mux := http.NewServeMux()
	mux.Handle("/apps/", http.StripPrefix("/apps", apphost.New(cfg)))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(testPage))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL, l
}

// connected returns p connected, closed at the end of t.
func connected(t *testing.T, p *mcpclient.Provider) *mcpclient.Provider {
	t.Helper()
	if err := p.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}
