package genkit_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/firebase/genkit/go/ai"
	genkitmcp "github.com/firebase/genkit/go/plugins/mcp"

	mcpgenkit "github.com/mcpbridge/mcpbridge/adapters/genkit"
	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/schema"
)

// The tests below hold the Genkit column of docs/frameworks.md: the same
// server through Genkit's own MCP plugin (plugins/mcp, on mcp-go) and
// through this adapter, one row each.

// plugin connects Genkit's MCP plugin to the demo, started by the plugin
// as a subprocess (this test binary, as the adapter's tests start it), and
// returns the plugin's tools and the server's pid.
func plugin(t *testing.T) ([]ai.Tool, int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	before := proctest.Children(os.Getpid())
	c, err := genkitmcp.NewGenkitMCPClient(genkitmcp.MCPClientOptions{Name: "notes",
		Stdio: &genkitmcp.StdioConfig{Command: exe, Env: []string{demo.ChildEnv + "=stdio"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Disconnect() })
	pid := 0
	for _, child := range proctest.Children(os.Getpid()) {
		if !slices.Contains(before, child) {
			pid = child
		}
	}
	tools, err := c.GetActiveTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return tools, pid
}

// pluginTool returns the plugin's name for the demo's tool name.
func pluginTool(t *testing.T, tools []ai.Tool, name string) ai.Tool {
	t.Helper()
	for _, tl := range tools {
		if strings.HasSuffix(tl.Name(), name) {
			return tl
		}
	}
	t.Fatalf("the plugin offers no %s", name)
	return nil
}

func refs(tools []ai.Tool) []ai.ToolRef {
	out := make([]ai.ToolRef, len(tools))
	for i, tl := range tools {
		out[i] = tl
	}
	return out
}

// A result marked isError: the plugin gives the model the result's JSON,
// the flag inside it; the adapter says in words that the tool failed.
func TestCompareIsError(t *testing.T) {
	ctx := context.Background()
	tools, _ := plugin(t)
	name := pluginTool(t, tools, "get_note").Name()
	m := &scripted{turns: []turn{calls(name, `{"id":99}`), answer("ok")}}
	if _, err := generate(ctx, t, m, &mcpgenkit.Offer{Tools: refs(tools)}, "get"); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(responses(m.sent[1])[name].Output)
	if !strings.Contains(string(out), `"isError":true`) {
		t.Fatalf("the plugin's isError: %s", out)
	}
	t.Logf("plugin: %s", out)

	offer, err := mcpgenkit.Tools(ctx, demoServer(t, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	m = &scripted{turns: []turn{calls("get_note", `{"id":99}`), answer("ok")}}
	if _, err := generate(ctx, t, m, offer, "get"); err != nil {
		t.Fatal(err)
	}
	if got := output(responses(m.sent[1])["get_note"]); !strings.HasPrefix(got, "The tool ran and failed: ") {
		t.Fatalf("the adapter's isError: %q", got)
	}
}

// An image: the plugin gives the model the result's JSON, the PNG as
// base64 text in it; the adapter gives it a media part.
func TestCompareImages(t *testing.T) {
	ctx := context.Background()
	tools, _ := plugin(t)
	name := pluginTool(t, tools, "color_swatch").Name()
	m := &scripted{turns: []turn{calls(name, `{"color":"teal"}`), answer("ok")}}
	if _, err := generate(ctx, t, m, &mcpgenkit.Offer{Tools: refs(tools)}, "teal"); err != nil {
		t.Fatal(err)
	}
	res := responses(m.sent[1])[name]
	out, _ := json.Marshal(res.Output)
	if len(res.Content) != 0 || !strings.Contains(string(out), `"data":"iVBORw0KGgo`) {
		t.Fatalf("the plugin's image: %d parts, output %.200s", len(res.Content), out)
	}

	offer, err := mcpgenkit.Tools(ctx, demoServer(t, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	m = &scripted{turns: []turn{calls("color_swatch", `{"color":"teal"}`), answer("ok")}}
	if _, err := generate(ctx, t, m, offer, "teal"); err != nil {
		t.Fatal(err)
	}
	if res := responses(m.sent[1])["color_swatch"]; len(res.Content) != 1 || !res.Content[0].IsImage() || strings.Contains(output(res), "iVBORw0KGgo") {
		t.Fatalf("the adapter's image: %+v", res)
	}
}

// A tool that takes no arguments, which the server declares as an object
// without "properties" (go-sdk's schema for struct{}): OpenAI refuses it
// ("object schema missing properties"). The plugin sends it as the server
// wrote it; the adapter, lowered for OpenAI, with properties.
func TestCompareSchemaForOpenAI(t *testing.T) {
	tools, _ := plugin(t)
	in, _ := json.Marshal(pluginTool(t, tools, "note_stats").Definition().InputSchema)
	if strings.Contains(string(in), `"properties"`) {
		t.Fatalf("the plugin's schema has properties: %s", in)
	}
	t.Logf("plugin: %s", in)

	offer, err := mcpgenkit.Tools(context.Background(), demoServer(t, nil), &mcpgenkit.Options{Vendor: schema.OpenAI})
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range offer.Tools {
		if ref.Name() != "note_stats" {
			continue
		}
		in, _ := json.Marshal(ref.(ai.Tool).Definition().InputSchema)
		if !strings.Contains(string(in), `"properties":{}`) {
			t.Fatalf("the adapter's schema for OpenAI: %s", in)
		}
		return
	}
	t.Fatal("note_stats not offered")
}

// A server that dies: the plugin's next call is an error that ends
// Generate, and every call after it too (it does not reconnect); the
// adapter's provider, with Reconnect, starts the server again
// (TestServerDiesMidCall has a call caught by the death sent again).
func TestCompareReconnect(t *testing.T) {
	ctx := context.Background()
	tools, pid := plugin(t)
	syscall.Kill(pid, syscall.SIGKILL)
	proctest.Eventually(t, "the server to die", func() bool { return !proctest.Alive(pid) })
	name := pluginTool(t, tools, "list_notes").Name()
	for range 2 {
		m := &scripted{turns: []turn{calls(name, `{}`), answer("ok")}}
		if _, err := generate(ctx, t, m, &mcpgenkit.Offer{Tools: refs(tools)}, "list"); err == nil {
			t.Fatal("the plugin's call to a dead server did not fail")
		} else {
			t.Logf("plugin: %v", err)
		}
	}

	changed := make(chan mcptool.Event, 64)
	p, pid := connectCounting(t, &mcptool.Options{Reconnect: &mcptool.Reconnect{MaxAttempts: 2}, OnEvent: func(e mcptool.Event) {
		select {
		case changed <- e:
		default: // never block the provider; a handful of events come
		}
	}})
	syscall.Kill(pid, syscall.SIGKILL)
	lost := false
	for e := range changed { // the connection's states after Connect's
		lost = lost || e.State == mcptool.StateReconnecting
		if lost && e.State == mcptool.StateReady {
			break
		}
	}
	offer, err := mcpgenkit.Tools(ctx, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &scripted{turns: []turn{calls("list_notes", `{}`), answer("ok")}}
	if _, err := generate(ctx, t, m, offer, "list"); err != nil {
		t.Fatal(err)
	}
	if got := output(responses(m.sent[1])["list_notes"]); !strings.Contains(got, "no notes yet") {
		t.Fatalf("after the server was started again: %q", got)
	}
}

// Pages: both follow the listing's cursor over three pages. Bounds: a
// server whose cursor never ends (a new one on every page) keeps the
// plugin listing for as long as its context lasts (here, until the server
// has answered 1000 pages and cancels it); the adapter's provider stops at
// its bound (100 pages) and says so.
func TestComparePagesAndBounds(t *testing.T) {
	_, pages := hostile.Start(t, "pages")
	c, err := genkitmcp.NewGenkitMCPClient(genkitmcp.MCPClientOptions{Name: "pages", StreamableHTTP: &genkitmcp.StreamableHTTPConfig{BaseURL: pages.URL}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Disconnect()
	tools, err := c.GetActiveTools(context.Background(), nil)
	if err != nil || len(tools) != 3 {
		t.Fatalf("the plugin listed %d tools of 3 pages: %v", len(tools), err)
	}
	p := mcptool.FromURL(mcptool.HTTP{URL: pages.URL}, &mcptool.Options{Name: "pages"})
	if err := p.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if n := len(p.Tools()); n != 3 {
		t.Fatalf("the adapter's provider listed %d tools of 3 pages", n)
	}

	s, err := hostile.New("endless")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var listed atomic.Int64
	endless := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.Count("tools/list") >= 1000 {
			cancel()
		}
		listed.Store(int64(s.Count("tools/list")))
		s.Handler().ServeHTTP(w, r)
	}))
	defer endless.Close()
	c, err = genkitmcp.NewGenkitMCPClient(genkitmcp.MCPClientOptions{Name: "endless", StreamableHTTP: &genkitmcp.StreamableHTTPConfig{BaseURL: endless.URL}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Disconnect()
	if _, err := c.GetActiveTools(ctx, nil); err == nil || listed.Load() < 1000 {
		t.Fatalf("the plugin stopped by itself after %d pages: %v", listed.Load(), err)
	}
	p = mcptool.FromURL(mcptool.HTTP{URL: endless.URL}, &mcptool.Options{Name: "endless"})
	err = p.Connect(context.Background())
	if err == nil || !strings.Contains(err.Error(), "100 pages") {
		t.Fatalf("the adapter's provider on an endless listing: %v", err)
	}
	t.Logf("adapter: %v", err)
}
