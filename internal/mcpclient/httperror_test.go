package mcpclient_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/tool"
)

// An answer a refusing server gives every request while it refuses.
type httpAnswer struct {
	status      int
	contentType string
	body        string
	retryAfter  string
}

// refusing serves the demo over streamable HTTP at /mcp and SSE at /sse,
// but answers the requests of the methods in refuse (all while it is nil)
// with its answer while it is set.
type refusing struct {
	*httptest.Server
	on     atomic.Pointer[httpAnswer]
	refuse map[string]bool
}

func newRefusing(t *testing.T) *refusing {
	r := &refusing{}
	mcp, sse := demo.HTTPHandler(), demo.SSEHandler()
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if a := r.on.Load(); a != nil && (r.refuse == nil || r.refuse[req.Method]) {
			io.Copy(io.Discard, req.Body)
			if a.contentType != "" {
				w.Header().Set("Content-Type", a.contentType)
			}
			if a.retryAfter != "" {
				w.Header().Set("Retry-After", a.retryAfter)
			}
			w.WriteHeader(a.status)
			io.WriteString(w, a.body)
			return
		}
		if strings.HasPrefix(req.URL.Path, "/sse") {
			sse.ServeHTTP(w, req)
			return
		}
		mcp.ServeHTTP(w, req)
	}))
	t.Cleanup(r.Close)
	return r
}

// class names what err means: retryable, unknown (outcome), fatal, or
// none of them.
func class(err error) string {
	switch {
	case tool.Retryable(err):
		return "retryable"
	case tool.OutcomeUnknown(err):
		return "unknown"
	case tool.Fatal(err):
		return "fatal"
	}
	return "none"
}

const page = "<!doctype html><html><body>Sign in to Example Corp</body></html>"

// Every HTTP answer that is no MCP message, at connect and on a call,
// over both HTTP transports, fails naming the server and the status (for a
// body MCP does not use, its Content-Type and what MCP answers with), with
// a hint where one helps, saying what it means, and never quoting the
// URL's path or query, or a web page.
func TestHTTPRefusals(t *testing.T) {
	srv := newRefusing(t)
	endpoint := func(sse bool) string {
		if sse {
			return srv.URL + "/sse?key=s3cret"
		}
		return srv.URL + "/mcp?key=s3cret"
	}
	for _, tc := range []struct {
		name string
		httpAnswer
		want []string
		// The class at connect and on a call, "" where the row does not
		// apply; sse* for the legacy SSE transport.
		connect, call, sseConnect, sseCall string
		retryAfter                         time.Duration
	}{
		{name: "web page", httpAnswer: httpAnswer{status: 200, contentType: "text/html; charset=utf-8", body: page},
			want:    []string{"HTTP 200 OK with Content-Type text/html, where MCP answers with", "is this the server's MCP endpoint?"},
			connect: "fatal", call: "fatal", sseConnect: "fatal", sseCall: "fatal"},
		{name: "JSON not JSON-RPC", httpAnswer: httpAnswer{status: 200, contentType: "application/json", body: `{"status":"ok"}`},
			want:    []string{"HTTP 200", "is this the server's MCP endpoint?"},
			connect: "fatal", call: "fatal", sseConnect: "fatal"},
		{name: "400", httpAnswer: httpAnswer{status: 400, contentType: "text/plain", body: "missing Mcp-Protocol-Version header\nsecond line"},
			want:    []string{`HTTP 400 Bad Request ("missing Mcp-Protocol-Version header")`},
			connect: "fatal", call: "fatal", sseConnect: "fatal", sseCall: "fatal"},
		{name: "401", httpAnswer: httpAnswer{status: 401},
			want:    []string{"HTTP 401 Unauthorized", "asks for authorization, and no OAuth is configured"},
			connect: "fatal", call: "fatal", sseConnect: "fatal", sseCall: "fatal"},
		{name: "403", httpAnswer: httpAnswer{status: 403, contentType: "text/html", body: page},
			want:    []string{"HTTP 403 Forbidden", "asks for authorization"},
			connect: "fatal", call: "fatal", sseConnect: "fatal", sseCall: "fatal"},
		// On a call over streamable HTTP, a 404 is the session's end,
		// which the provider rebuilds (TestReconnectExpiredHTTPSession).
		{name: "404", httpAnswer: httpAnswer{status: 404, contentType: "text/plain", body: "404 page not found"},
			want:    []string{"HTTP 404 Not Found", "/mcp (streamable HTTP) or /sse (SSE)"},
			connect: "fatal", sseConnect: "fatal", sseCall: "fatal"},
		{name: "405", httpAnswer: httpAnswer{status: 405},
			want:    []string{"HTTP 405 Method Not Allowed", "is this the server's MCP endpoint?"},
			connect: "fatal", call: "fatal", sseConnect: "fatal", sseCall: "fatal"},
		{name: "408", httpAnswer: httpAnswer{status: 408},
			want:    []string{"HTTP 408 Request Timeout"},
			connect: "retryable", call: "retryable", sseConnect: "retryable", sseCall: "retryable"},
		{name: "415", httpAnswer: httpAnswer{status: 415},
			want:    []string{"HTTP 415 Unsupported Media Type", "is this the server's MCP endpoint?"},
			connect: "fatal", call: "fatal", sseConnect: "fatal", sseCall: "fatal"},
		{name: "429", httpAnswer: httpAnswer{status: 429, retryAfter: "2"}, retryAfter: 2 * time.Second,
			want:    []string{"HTTP 429 Too Many Requests (retry after 2s)"},
			connect: "retryable", call: "retryable", sseConnect: "retryable", sseCall: "retryable"},
		{name: "500", httpAnswer: httpAnswer{status: 500, contentType: "text/plain", body: "overloaded \x1b[31mnow\x1b[0m"},
			want:    []string{`HTTP 500 Internal Server Error ("overloaded now")`},
			connect: "fatal", call: "fatal", sseConnect: "fatal", sseCall: "fatal"},
		{name: "502", httpAnswer: httpAnswer{status: 502, contentType: "text/html", body: page},
			want:    []string{"HTTP 502 Bad Gateway"},
			connect: "retryable", call: "unknown", sseConnect: "retryable", sseCall: "unknown"},
		{name: "503", httpAnswer: httpAnswer{status: 503, contentType: "text/plain", body: "down for a deploy", retryAfter: "2"}, retryAfter: 2 * time.Second,
			want:    []string{`HTTP 503 Service Unavailable ("down for a deploy") (retry after 2s)`},
			connect: "retryable", call: "retryable", sseConnect: "retryable", sseCall: "retryable"},
		{name: "504", httpAnswer: httpAnswer{status: 504},
			want:    []string{"HTTP 504 Gateway Timeout"},
			connect: "retryable", call: "unknown", sseConnect: "retryable", sseCall: "unknown"},
	} {
		for _, sse := range []bool{false, true} {
			for _, onCall := range []bool{false, true} {
				want := map[[2]bool]string{{false, false}: tc.connect, {false, true}: tc.call, {true, false}: tc.sseConnect, {true, true}: tc.sseCall}[[2]bool{sse, onCall}]
				if want == "" {
					continue
				}
				name := tc.name + map[bool]string{false: "/streamable", true: "/sse"}[sse] + map[bool]string{false: "/connect", true: "/call"}[onCall]
				t.Run(name, func(t *testing.T) {
					p := mcpclient.FromURL(endpoint(sse), mcpclient.WithName("flaky"), mcpclient.WithCallTimeout(time.Minute))
					defer func() {
						srv.on.Store(nil) // so that Close ends the session
						p.Close()
					}()
					var err error
					if onCall {
						connect(t, p)
						srv.on.Store(&tc.httpAnswer)
						_, err = callText(context.Background(), p, "note_stats", nil)
					} else {
						srv.on.Store(&tc.httpAnswer)
						err = p.Connect(context.Background())
					}
					checkRefusal(t, err, tc.status, tc.retryAfter, want, tc.want)
					op := map[bool]string{false: ": connect: ", true: `: tools/call "note_stats": `}[onCall]
					if !strings.Contains(err.Error(), `server "flaky"`+op) {
						t.Errorf("%v: does not name the server and what was done", err)
					}
				})
			}
		}
	}
}

// checkRefusal checks that err is a TransportError of an HTTPError of
// status, of the class want, whose text holds each of texts and none of
// what must not be quoted.
func checkRefusal(t *testing.T, err error, status int, retryAfter time.Duration, want string, texts []string) {
	t.Helper()
	var te *mcpclient.TransportError
	var he *mcpclient.HTTPError
	if !errors.As(err, &te) || !errors.As(err, &he) {
		t.Fatalf("%v: want a TransportError of an HTTPError", err)
	}
	if he.StatusCode != status || he.RetryAfter != retryAfter {
		t.Errorf("status %d, Retry-After %v; want %d, %v", he.StatusCode, he.RetryAfter, status, retryAfter)
	}
	if got := class(err); got != want {
		t.Errorf("%v: %s; want %s", err, got, want)
	}
	for _, s := range texts {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%v: does not say %q", err, s)
		}
	}
	for _, s := range []string{"s3cret", "Sign in", "\x1b", "second line", "page not found", "rejected by transport"} {
		if strings.Contains(err.Error(), s) {
			t.Errorf("%v: quotes %q", err, s)
		}
	}
}

// The legacy SSE transport's stream opens, but its POST of initialize is
// refused: go-sdk passes that on in text alone, and the refusal is told
// all the same.
func TestHTTPRefusalOfSSEPost(t *testing.T) {
	srv := newRefusing(t)
	srv.refuse = map[string]bool{http.MethodPost: true}
	srv.on.Store(&httpAnswer{status: http.StatusServiceUnavailable, retryAfter: "3"})
	p := mcpclient.FromURL(srv.URL+"/sse", mcpclient.WithName("flaky"))
	defer p.Close()
	err := p.Connect(context.Background())
	checkRefusal(t, err, http.StatusServiceUnavailable, 3*time.Second, "retryable", []string{"HTTP 503 Service Unavailable (retry after 3s)"})
}

// A status the server answers with a JSON-RPC error is the server's
// httpAnswer, told as go-sdk reads it, and no HTTPError.
func TestHTTPStatusWithJSONRPCError(t *testing.T) {
	srv := newRefusing(t)
	p := connectURL(t, srv.URL+"/mcp", mcpclient.WithName("flaky"))
	srv.on.Store(&httpAnswer{status: 400, contentType: "application/json", body: `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"no such tool here"}}`})
	defer srv.on.Store(nil)
	_, err := callText(context.Background(), p, "note_stats", nil)
	var pe *mcpclient.ProtocolError
	var he *mcpclient.HTTPError
	if !errors.As(err, &pe) || errors.As(err, &he) || !strings.Contains(err.Error(), "no such tool here") {
		t.Fatalf("%v: want a ProtocolError with the server's message", err)
	}
}

// deploying is a server behind a load balancer, served in the calling
// goroutine (for synctest): while it is down for a deploy, the balancer
// answers 503 with a Retry-After, and a restarted server knows none of the
// sessions before.
type deploying struct {
	mu      sync.Mutex
	down    bool
	servers []*mcp.Server
	handler http.Handler
	tries   []time.Time // the requests refused while down, without a session
}

// restart starts a new server (no session known), down until up.
func (d *deploying) restart() {
	d.mu.Lock()
	defer d.mu.Unlock()
	server := demo.New()
	d.servers = append(d.servers, server)
	d.handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{JSONResponse: true})
	d.down = true
}

func (d *deploying) up() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.down = false
}

func (d *deploying) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	d.mu.Lock()
	h, down := d.handler, d.down
	if down && r.Header.Get("Mcp-Session-Id") == "" {
		d.tries = append(d.tries, time.Now())
	}
	d.mu.Unlock()
	switch {
	case r.Method == http.MethodGet:
		rec.WriteHeader(http.StatusMethodNotAllowed) // no stream of its own
	case down && r.Header.Get("Mcp-Session-Id") == "":
		rec.Header().Set("Retry-After", "2")
		http.Error(rec, "deploying", http.StatusServiceUnavailable)
	default:
		sr := r.Clone(r.Context())
		sr.RequestURI = r.URL.RequestURI()
		h.ServeHTTP(rec, sr)
	}
	resp := rec.Result()
	resp.Request = r
	return resp, nil
}

// close ends the sessions of every server started.
func (d *deploying) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, server := range d.servers {
		for s := range server.Sessions() {
			s.Close()
		}
	}
}

// A provider that reconnects rebuilds a connection the server forgot
// while it answers 503 for a deploy, once the deploy is over, waiting
// between attempts as long as its Retry-After asks (within MaxDelay).
func TestReconnectAfterUnavailable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &deploying{}
		d.restart()
		d.up()
		defer d.close()
		var seen states
		p := mcpclient.FromURL("http://mcp.example/mcp", mcpclient.WithHTTPClient(&http.Client{Transport: d}),
			mcpclient.WithReconnect(mcpclient.Reconnect{MaxAttempts: 10, MinDelay: 100 * time.Millisecond, MaxDelay: 3 * time.Second}),
			mcpclient.WithStateChange(seen.record))
		defer p.Close()
		connect(t, p)

		d.restart()
		err := p.Refresh(context.Background()) // 404: the session is gone
		if err == nil {
			t.Fatal("listed the tools on a session the server forgot")
		}
		time.Sleep(7 * time.Second) // attempts at 0.1s, 2.1s (the Retry-After), 5.1s (MaxDelay): 503
		synctest.Wait()
		if st, _ := p.State(); st != mcpclient.StateReconnecting {
			t.Fatalf("state %v while the server is down; want reconnecting", st)
		}
		d.up()
		time.Sleep(3 * time.Second)
		synctest.Wait()
		if got := seen.String(); got != "connecting,ready,reconnecting,ready" {
			t.Fatalf("states %s", got)
		}
		if got := call(t, p.Handler(), "note_stats", `{}`).Text(); got != "notes: 0" {
			t.Fatalf("after the deploy: %q", got)
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		for i := 1; i < len(d.tries); i++ {
			if gap := d.tries[i].Sub(d.tries[i-1]); gap > 0 && gap < 2*time.Second {
				t.Errorf("attempts %v apart; the server asked for 2s", gap)
			}
		}
	})
}

// A call made raw (the gateway's fast path, which sends the tools/call
// itself) that a gateway before the server refuses is the same HTTPError,
// of the same class, as one made through go-sdk.
func TestHTTPRefusalOfARawCall(t *testing.T) {
	var refuse atomic.Int32
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return rawTools(nil, nil) }, &mcp.StreamableHTTPOptions{Stateless: true})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if status := int(refuse.Load()); status != 0 && r.Header.Get("Mcp-Method") == "tools/call" {
			w.WriteHeader(status)
			return
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	p := connectRaw(t, srv.URL)
	for status, want := range map[int]string{http.StatusBadGateway: "unknown", http.StatusServiceUnavailable: "retryable", http.StatusNotFound: "fatal"} {
		refuse.Store(int32(status))
		_, _, err := p.CallToolRaw(context.Background(), "fails", nil)
		checkRefusal(t, err, status, 0, want, []string{fmt.Sprintf(`server "raw": tools/call "fails": HTTP %d %s`, status, http.StatusText(status))})
	}
}
