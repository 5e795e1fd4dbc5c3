package main_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
)

// oneLine fails unless the command's error is one line, the last on
// stderr, after the servers' progress lines, and neither stream shows one
// of secrets.
func oneLine(t *testing.T, r result, secrets ...string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(r.err), "\n")
	for _, l := range lines[:len(lines)-1] {
		if !strings.HasPrefix(l, "✓ ") && !strings.HasPrefix(l, "✗ ") {
			t.Errorf("want the error in one line, got:\n%s", r.err)
		}
	}
	if !strings.HasPrefix(lines[len(lines)-1], "mcpbridge ") {
		t.Errorf("want the error on the last line, got:\n%s", r.err)
	}
	noSecret(t, r, secrets...)
}

// noSecret fails if either stream shows one of secrets.
func noSecret(t *testing.T, r result, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(r.out+r.err, s) {
			t.Errorf("the output shows %q:\n%s%s", s, r.out, r.err)
		}
	}
}

// A server that redirects to another origin gets nothing sent there: not
// the header, not the request. The command says so in one line naming both
// origins, and shows no secret, the one in the URL's query included.
func TestRedirectToAnotherOrigin(t *testing.T) {
	var reached atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
	}))
	t.Cleanup(other.Close)
	s, srv := hostile.Start(t, "redirect")
	s.SetElsewhere(other.URL)
	r := mcpbridge(t, t.TempDir(), "", nil, "call", "echo", `{"text":"hi"}`,
		"--url", srv.URL+"/mcp?api_key=s3cretq", "--header", "Authorization: Bearer s3cret")
	expect(t, r, 3, "redirected to "+other.URL, "its own "+srv.URL)
	oneLine(t, r, "s3cret")
	if n := reached.Load(); n > 0 {
		t.Fatalf("the other origin was sent %d requests", n)
	}
}

// A key in a server's URL shows in no error and no progress line.
func TestURLSecretsNotShown(t *testing.T) {
	gone := httptest.NewServer(http.NotFoundHandler())
	base := gone.URL
	gone.Close() // nothing listens there now
	dir := t.TempDir()
	r := mcpbridge(t, dir, "", nil, "tools", "--url", base+"/mcp/path-s3cret?api_key=s3cret")
	expect(t, r, 3, "nothing listens at "+strings.TrimPrefix(base, "http://")+" (connection refused)")
	oneLine(t, r, "s3cret")

	_, srv := hostile.Start(t, "")
	cfg := writeConfig(t, dir, "mcp.json", fmt.Sprintf(`{"mcpServers": {
		"up": {"url": %q},
		"down": {"url": %q}
	}}`, srv.URL+"/mcp", base+"/mcp?api_key=s3cret"))
	r = mcpbridge(t, dir, "", nil, "tools", "--config", cfg)
	expect(t, r, 3, "up_echo", "down: did not start: nothing listens at "+strings.TrimPrefix(base, "http://"))
	noSecret(t, r, "s3cret")
}

// An answer over the size limit (16 MiB by default) fails the call with
// one line naming the server and the limit.
func TestHTTPAnswerOverTheSizeLimit(t *testing.T) {
	// The server writes the answer as it generates it, so this process
	// holds none of it: on Linux a command it starts inherits its peak
	// resident memory, which TestCallImageBomb measures.
	_, srv := hostile.Start(t, "big-listed")
	r := mcpbridge(t, t.TempDir(), "", nil, "call", "big", `{"size": 17000000}`, "--url", srv.URL+"/mcp")
	expect(t, r, 3, `server "127.0.0.1"`, "16777216-byte size limit")
	oneLine(t, r)
}

// A --url without a path, which a user copies from a server's "listening
// on" line, gets a hint at the paths MCP servers serve at; one with a
// wrong path gets it too, but not that the URL has none.
func TestURLWithoutAPathHintsAtMCP(t *testing.T) {
	base := demoHTTP(t)
	r := mcpbridge(t, t.TempDir(), "", nil, "tools", "--url", base)
	expect(t, r, 3, `mcpbridge tools: server "127.0.0.1" did not start: `,
		"HTTP 404 Not Found: the URL has no path; an MCP server is most often at /mcp (streamable HTTP) or /sse (SSE)\n")
	oneLine(t, r)
	r = mcpbridge(t, t.TempDir(), "", nil, "tools", "--url", base+"/wrong")
	expect(t, r, 3, "HTTP 404 Not Found: nothing answers at the URL's path; an MCP server is most often at /mcp (streamable HTTP) or /sse (SSE)\n")
	if strings.Contains(r.err, "no path") {
		t.Errorf("a note on the path for a URL with a path:\n%s", r.err)
	}
}

// A URL that answers with a web page (a website's, a proxy's login page),
// or with a status a load balancer gives while the server restarts, fails
// at once in one line naming the status, and for the page what came, what
// MCP answers with and whether this is the endpoint; no page is quoted and
// no key in the URL is shown.
func TestHTTPRefusalSaid(t *testing.T) {
	var status atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if status.Load() == http.StatusOK {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, "<!doctype html><title>Sign in to Example</title>")
			return
		}
		w.Header().Set("Retry-After", "2")
		w.WriteHeader(int(status.Load()))
	}))
	t.Cleanup(srv.Close)
	url := srv.URL + "/mcp?api_key=s3cret"
	status.Store(http.StatusOK)
	r := mcpbridge(t, t.TempDir(), "", nil, "tools", "--url", url)
	expect(t, r, 3, `mcpbridge tools: server "127.0.0.1" did not start: HTTP 200 OK with Content-Type text/html, where MCP answers with application/json or text/event-stream: is this the server's MCP endpoint?`)
	oneLine(t, r, "s3cret", "Sign in")
	status.Store(http.StatusServiceUnavailable)
	r = mcpbridge(t, t.TempDir(), "", nil, "tools", "--url", url)
	expect(t, r, 3, `mcpbridge tools: server "127.0.0.1" did not start: HTTP 503 Service Unavailable (retry after 2s)`)
	oneLine(t, r, "s3cret")
}
