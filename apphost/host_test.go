package apphost_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/apphost"
	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
)

// post posts body as the page would (JSON, same origin) to path of the
// host at base, with extra headers, and returns the status and the body.
func post(t *testing.T, base, path, body string, headers ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+"/apps/"+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Close = true // no connection kept for the leak check to find
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(data)
}

// probeHost serves the probe server's app and the demo's, and opens the
// probe's app with the page handling everything; it returns the base URL
// and the frame's id.
func probeHost(t *testing.T, cfg apphost.Config) (base, frame string, logs *proctest.Buffer) {
	t.Helper()
	servers := map[string]*mcpclient.Provider{"demo": connected(t, mcpclient.FromServer("demo", demo.New(), mcpclient.WithApps()))}
	base, logs = serveHost(t, cfg, servers)
	servers["probe"] = connected(t, mcpclient.FromServer("probe", probeServer(base, "https://api.example.com"), mcpclient.WithApps()))
	code, body := post(t, base, "open", `{"server":"probe","tool":"probe","context":{"theme":"dark"},"handles":{"message":true,"modelContext":true,"links":true}}`)
	var o struct{ Frame, Src, Sandbox, Allow, Policy string }
	if code != http.StatusOK || json.Unmarshal([]byte(body), &o) != nil || o.Frame == "" || o.Src != "frame/"+o.Frame ||
		o.Sandbox != "allow-scripts allow-forms" || o.Allow != "camera" {
		t.Fatalf("open: %d %s", code, body)
	}
	return base, o.Frame, logs
}

// The frame's document is the server's HTML under a policy the document
// cannot loosen (a header, not a meta element) that also sandboxes it.
func TestFrameDocument(t *testing.T) {
	base, id, _ := probeHost(t, apphost.Config{})
	get := func(url string) (*http.Response, error) {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		req.Close = true
		return http.DefaultClient.Do(req)
	}
	res, err := get(base + "/apps/frame/" + id)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	const csp = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:; media-src data:; " +
		"connect-src https://api.example.com; frame-src 'none'; base-uri 'self'; object-src 'none'; form-action 'none'; sandbox allow-scripts allow-forms"
	if got := res.Header.Get("Content-Security-Policy"); got != csp {
		t.Errorf("policy\n got %s\nwant %s", got, csp)
	}
	for h, want := range map[string]string{"Content-Type": "text/html; charset=utf-8", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store",
		"Connection-Allowlist": `("https://api.example.com/*" "wss://api.example.com/*");webrtc=block`} {
		if got := res.Header.Get(h); got != want {
			t.Errorf("%s: %q, want %q", h, got, want)
		}
	}
	if !strings.Contains(string(body), `request("ui/initialize"`) {
		t.Errorf("the document is not the server's:\n%.200s", body)
	}
	if res, err := get(base + "/apps/frame/0123"); err != nil || res.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown frame: %v, %v", res, err)
	} else {
		res.Body.Close()
	}
}

// Only the page's own scripts may post: not the frame (its origin is
// opaque, "null"), not another site's page or form, even when the app
// declared the host's origin as one it may connect to.
func TestPostsOnlyFromThePage(t *testing.T) {
	base, id, _ := probeHost(t, apphost.Config{})
	msg := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for name, headers := range map[string][]string{
		"the frame":          {"Origin", "null", "Sec-Fetch-Site", "cross-site"},
		"another site":       {"Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site"},
		"another origin":     {"Origin", "http://127.0.0.1:1"},
		"a form":             {"Content-Type", "text/plain"},
		"a same-site origin": {"Sec-Fetch-Site", "same-site"},
	} {
		if code, body := post(t, base, "rpc/"+id, msg, headers...); code != http.StatusForbidden || !strings.Contains(body, "only the host page's own scripts") {
			t.Errorf("%s: %d %s", name, code, body)
		}
	}
	if code, body := post(t, base, "rpc/"+id, msg, "Origin", base); code != http.StatusOK || body != `{"reply":{"jsonrpc":"2.0","id":1,"result":{}}}` {
		t.Errorf("the page: %d %s", code, body)
	}
}

// A request whose Host is not a name the host serves is refused, whatever
// it asks: a page of another site whose name was made to resolve to this
// machine (DNS rebinding) is same-origin with itself, and its scripts
// would pass every other check. Loopback names are served by default;
// Config.Hosts names others, and then only those.
func TestHostChecked(t *testing.T) {
	base, id, _ := probeHost(t, apphost.Config{})
	port := base[strings.LastIndex(base, ":")+1:]
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"probe_data","arguments":{}}}`
	get := func(base, path, host string) int {
		req, _ := http.NewRequest(http.MethodGet, base+"/apps/"+path, nil)
		req.Close = true
		req.Host = host
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for _, host := range []string{"evil.example:" + port, "evil.example", "127.0.0.1.evil.example:" + port, "localhost.evil.example"} {
		if code, body := post(t, base, "rpc/"+id, call, "Host", host, "Origin", "http://"+host); code != http.StatusForbidden || !strings.Contains(body, "not a name this host serves") {
			t.Errorf("Host %s: tools/call: %d %s", host, code, body)
		}
		for _, path := range []string{"host.js", "frame/" + id} {
			if code := get(base, path, host); code != http.StatusForbidden {
				t.Errorf("Host %s: GET %s: %d", host, path, code)
			}
		}
	}
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port, "127.0.0.1"} {
		if code, body := post(t, base, "rpc/"+id, call, "Host", host, "Origin", "http://"+host); code != http.StatusOK || !strings.Contains(body, `"text":"data"`) {
			t.Errorf("Host %s: tools/call: %d %s", host, code, body)
		}
	}

	base, id, _ = probeHost(t, apphost.Config{Hosts: []string{"apps.example", "127.0.0.1"}})
	port = base[strings.LastIndex(base, ":")+1:]
	for host, want := range map[string]int{"apps.example:8443": http.StatusOK, "apps.example": http.StatusOK, "localhost:" + port: http.StatusForbidden, "evil.example": http.StatusForbidden} {
		if code := get(base, "frame/"+id, host); code != want {
			t.Errorf("Hosts set, Host %s: %d, want %d", host, code, want)
		}
	}
}

func TestOpenRefusals(t *testing.T) {
	base, _, _ := probeHost(t, apphost.Config{})
	for body, want := range map[string]string{
		`{"server":"nope","tool":"probe"}`:                `404 {"error":"apphost: no server \"nope\""}`,
		`{"server":"demo","tool":"add_note"}`:             `404 {"error":"apphost: server \"demo\" has no tool \"add_note\" with an app"}`,
		`{"server":"probe","tool":"probe","context":[1]}`: `400 {"error":"apphost: open: the host context is not an object"}`,
		`{"server":"probe","tool":"probe","context":"x"}`: `400 {"error":"apphost: open: the host context is not an object"}`,
		`{"server":`: `400 {"error":"apphost: open: unexpected end of JSON input"}`,
		`{"server":"probe","tool":"probe\u001b[2Jx"}`:             `404 {"error":"apphost: server \"probe\" has no tool \"probex\" with an app"}`,
		`{"server":"probe","tool":"` + strings.Repeat("a", 2<<20): `400 {"error":"apphost: open: the request is over 1048576 bytes"}`,
	} {
		code, got := post(t, base, "open", body)
		if s := strconv.Itoa(code) + " " + got; s != want {
			t.Errorf("%.60s:\n got %s\nwant %s", body, s, want)
		}
	}
}

// Every message of a frame is checked before anything is done: what the
// app could not match a reply to is dropped; a request it got wrong, or
// that asks what the page does not do, is refused saying why; what the
// page alone can do goes to it checked.
func TestMessagesChecked(t *testing.T) {
	base, id, logs := probeHost(t, apphost.Config{})
	rpc := func(msg string) string {
		t.Helper()
		code, body := post(t, base, "rpc/"+id, msg)
		if code != http.StatusOK {
			t.Fatalf("%s: %d %s", msg, code, body)
		}
		return body
	}
	for msg, want := range map[string]string{
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`:                                  `{}`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`:                            `{}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`:                                `{}`,
		`{"jsonrpc":"2.0","id":1e3,"method":"ping"}`:                                `{}`,
		`{"jsonrpc":"2.0","id":"` + strings.Repeat("x", 129) + `","method":"ping"}`: `{}`,
		`[1,2]`: `{}`,
		`{"jsonrpc":"2.0","id":"a","method":"ping"}`:                                                                         `{"reply":{"jsonrpc":"2.0","id":"a","result":{}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"sampling/createMessage"}`:                                                         `{"reply":{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"method \"sampling/createMessage\" is not one an app may call"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/whatever"}`:                                                                `{}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":[1]}`:                                                        `{"reply":{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"params is not an object"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{}}`:                                                         `{"reply":{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"tools/call: name is not a string of 1 to 256 bytes"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"probe_data","arguments":[]}}`:                       `{"reply":{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"tools/call \"probe_data\": arguments is not an object"}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"probe_data"}}`:                                      `{"reply":{"jsonrpc":"2.0","id":6,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"probe","version":"1"}},"content":[{"type":"text","text":"data"}],"resultType":"complete"}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"ui/message","params":{"role":"assistant","content":{"type":"text","text":"hi"}}}`: `{"reply":{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"ui/message: role is not \"user\""}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"ui/message","params":{"role":"user","content":{"type":"text","text":" "}}}`:       `{"reply":{"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"ui/message: content is not text blocks of 1 to 65536 bytes"}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"ui/message","params":{"role":"user","content":[{"type":"image","data":"x"}]}}`:    `{"reply":{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"ui/message: content is not text blocks of 1 to 65536 bytes"}}}`,
		`{"jsonrpc":"2.0","id":10,"method":"ui/message","params":{"role":"user","content":{"type":"text","text":"hi"}}}`:     `{"action":{"kind":"message","text":"hi"}}`,
		`{"jsonrpc":"2.0","id":11,"method":"ui/open-link","params":{"url":"javascript:alert(1)"}}`:                           `{"reply":{"jsonrpc":"2.0","id":11,"error":{"code":-32602,"message":"ui/open-link: url is not an absolute http or https URL of at most 4096 bytes"}}}`,
		`{"jsonrpc":"2.0","id":12,"method":"ui/open-link","params":{"url":"https://example.com/a?b"}}`:                       `{"action":{"kind":"open-link","url":"https://example.com/a?b"}}`,
		`{"jsonrpc":"2.0","id":13,"method":"ui/update-model-context","params":{"structuredContent":{"a": 1}}}`:               `{"action":{"kind":"context","structured":{"a":1}}}`,
		`{"jsonrpc":"2.0","id":14,"method":"ui/request-display-mode","params":{"mode":"huge"}}`:                              `{"reply":{"jsonrpc":"2.0","id":14,"error":{"code":-32602,"message":"ui/request-display-mode: mode is none of \"inline\", \"fullscreen\", \"pip\""}}}`,
		`{"jsonrpc":"2.0","method":"ui/notifications/size-changed","params":{"width":-1,"height":20}}`:                       `{}`,
		`{"jsonrpc":"2.0","method":"ui/notifications/size-changed","params":{"height":240}}`:                                 `{"action":{"kind":"size","height":240}}`,
		`{"jsonrpc":"2.0","method":"ui/notifications/initialized"}`:                                                          `{"action":{"kind":"initialized"}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"\u001b]0;pwned\u0007hello"}}`:    `{}`,
	} {
		if got := rpc(msg); got != want {
			t.Errorf("%.90s\n got %s\nwant %s", msg, got, want)
		}
	}
	if strings.Contains(logs.String(), "\x1b") || !strings.Contains(logs.String(), `data=hello`) {
		t.Errorf("the app's log line is not clean:\n%q", logs)
	}

	// ui/initialize: what the host does, the page's context, the tool; the
	// display modes the app declares bound what it may ask for.
	var init struct {
		Reply struct {
			Result struct {
				ProtocolVersion  string
				HostCapabilities map[string]json.RawMessage
				HostContext      struct {
					Theme    string
					ToolInfo struct{ Tool struct{ Name string } }
				}
			}
		}
	}
	body := rpc(`{"jsonrpc":"2.0","id":20,"method":"ui/initialize","params":{"appCapabilities":{"availableDisplayModes":["inline"]},"protocolVersion":"2026-01-26"}}`)
	if err := json.Unmarshal([]byte(body), &init); err != nil {
		t.Fatal(err)
	}
	r := init.Reply.Result
	if r.ProtocolVersion != "2026-01-26" || r.HostContext.Theme != "dark" || r.HostContext.ToolInfo.Tool.Name != "probe" ||
		string(r.HostCapabilities["sandbox"]) != `{"csp":{"connectDomains":["https://api.example.com"]},"permissions":{"camera":{}}}` || r.HostCapabilities["openLinks"] == nil {
		t.Errorf("ui/initialize: %s", body)
	}
	if got := rpc(`{"jsonrpc":"2.0","id":21,"method":"ui/request-display-mode","params":{"mode":"fullscreen"}}`); got != `{"action":{"kind":"display-mode","mode":"fullscreen","declared":false}}` {
		t.Errorf("a mode the app did not declare: %s", got)
	}
}

// A page that does not take messages, context or links has them refused,
// and the app is told so at ui/initialize.
func TestWhatThePageDoesNotHandleIsRefused(t *testing.T) {
	base, _, _ := probeHost(t, apphost.Config{})
	_, body := post(t, base, "open", `{"server":"probe","tool":"probe","handles":{"links":false}}`)
	var o struct{ Frame string }
	json.Unmarshal([]byte(body), &o)
	for msg, want := range map[string]string{
		`{"jsonrpc":"2.0","id":1,"method":"ui/message","params":{"role":"user","content":{"type":"text","text":"hi"}}}`: "ui/message: this host takes no messages from apps",
		`{"jsonrpc":"2.0","id":2,"method":"ui/open-link","params":{"url":"https://example.com/"}}`:                      "ui/open-link: this host opens no links",
		`{"jsonrpc":"2.0","id":3,"method":"ui/update-model-context","params":{}}`:                                       "ui/update-model-context: this host gives its model no context from apps",
		`{"jsonrpc":"2.0","id":4,"method":"ui/initialize","params":{}}`:                                                 `"hostCapabilities":{"logging":{},"sandbox"`,
	} {
		if _, got := post(t, base, "rpc/"+o.Frame, msg); !strings.Contains(got, want) {
			t.Errorf("%.60s: %s", msg, got)
		}
	}
}

// Open frames are bounded: past MaxFrames the one least recently used is
// closed, and a closed frame is gone.
func TestFramesBounded(t *testing.T) {
	base, first, _ := probeHost(t, apphost.Config{MaxFrames: 2})
	open := func() string {
		_, body := post(t, base, "open", `{"server":"probe","tool":"probe"}`)
		var o struct{ Frame string }
		json.Unmarshal([]byte(body), &o)
		return o.Frame
	}
	second := open()
	const ping = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	post(t, base, "rpc/"+first, ping) // the first is used after the second
	third := open()
	for id, want := range map[string]int{first: 200, second: 404, third: 200} {
		if code, body := post(t, base, "rpc/"+id, ping); code != want {
			t.Errorf("frame %s: %d %s, want %d", id, code, body, want)
		}
	}
	if code, _ := post(t, base, "close/"+first, `{}`); code != http.StatusNoContent {
		t.Errorf("close: %d", code)
	}
	if code, _ := post(t, base, "rpc/"+first, ping); code != http.StatusNotFound {
		t.Errorf("a closed frame answers: %d", code)
	}
}

// An app has at most 4 calls and reads running at once; the next is
// refused until one ends.
func TestCallsInFlightBounded(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 8)
	s := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "1"}, nil)
	meta := mcp.Meta{"ui": map[string]any{"resourceUri": "ui://slow/app.html"}}
	s.AddTool(&mcp.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`), Meta: meta},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			started <- struct{}{}
			select {
			case <-release:
			case <-ctx.Done():
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "ui://slow/app.html", Name: "slow", MIMEType: mcpclient.AppMIMEType},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "ui://slow/app.html", MIMEType: mcpclient.AppMIMEType, Text: "<p>slow</p>"}}}, nil
		})
	base, _ := serveHost(t, apphost.Config{}, map[string]*mcpclient.Provider{"slow": connected(t, mcpclient.FromServer("slow", s, mcpclient.WithApps()))})
	_, body := post(t, base, "open", `{"server":"slow","tool":"slow"}`)
	var o struct{ Frame string }
	json.Unmarshal([]byte(body), &o)
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`
	done := make(chan string, 4)
	for range 4 {
		go func() {
			_, body := post(t, base, "rpc/"+o.Frame, call)
			done <- body
		}()
	}
	for range 4 {
		<-started
	}
	if _, body := post(t, base, "rpc/"+o.Frame, call); !strings.Contains(body, "the app has 4 calls and reads running; wait for one") {
		t.Errorf("a fifth call: %s", body)
	}
	close(release)
	for range 4 {
		if body := <-done; !strings.Contains(body, `"text":"done"`) {
			t.Errorf("a call: %s", body)
		}
	}
	if _, body := post(t, base, "rpc/"+o.Frame, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"ui://slow/app.html"}}`); !strings.Contains(body, `"text":"\u003cp\u003eslow\u003c/p\u003e"`) {
		t.Errorf("a read once the calls ended: %s", body)
	}
}
