package mcpclient_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
)

// staticToken is an OAuth handler that holds a token already.
type staticToken string

func (s staticToken) TokenSource(context.Context) (oauth2.TokenSource, error) {
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: string(s)}), nil
}

func (staticToken) Authorize(context.Context, *http.Request, *http.Response) error {
	return errors.New("no flow")
}

// authorizing is a caller's own transport that adds a credential.
func authorizing(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer s3cret")
	return http.DefaultTransport.RoundTrip(r)
}

// No credential, and no request, reaches an origin the host did not
// configure: not through a redirect (configured headers, an OAuth token,
// the caller's own client alike), nor through the endpoint a legacy SSE
// stream names. The refusal names both origins and not the secrets.
func TestCredentialsStayAtTheirOrigin(t *testing.T) {
	for _, tc := range []struct {
		name, mode, path string
		opts             []mcpclient.Option
	}{
		{"redirect with headers", "redirect", "/mcp", []mcpclient.Option{mcpclient.WithHeaders(map[string]string{"Authorization": "Bearer s3cret", "X-Api-Key": "s3cret"})}},
		{"redirect with an OAuth token", "redirect", "/mcp", []mcpclient.Option{mcpclient.WithOAuth(staticToken("s3cret"))}},
		{"redirect with the caller's client", "redirect", "/mcp", []mcpclient.Option{mcpclient.WithHTTPClient(&http.Client{Transport: roundTripFunc(authorizing)})}},
		{"SSE endpoint elsewhere", "sse-elsewhere", "/sse", []mcpclient.Option{mcpclient.WithHeaders(map[string]string{"Authorization": "Bearer s3cret"})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// An origin the host did not configure: it answers nothing, and
			// keeps what reaches it.
			other := record(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				http.Error(w, "nothing here", http.StatusTeapot)
			}))
			s, srv := hostile.Start(t, tc.mode)
			s.SetElsewhere(other.URL)
			p := mcpclient.FromURL(srv.URL+tc.path+"?api_key=s3cret", append(tc.opts, mcpclient.WithName("hostile"))...)
			t.Cleanup(func() { p.Close() })
			err := p.Connect(context.Background())
			var te *mcpclient.TransportError
			if !errors.As(err, &te) || te.Retryable() {
				t.Fatalf("got %v; want a TransportError that is not retryable", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, srv.URL) || !strings.Contains(msg, other.URL) || !strings.Contains(msg, `server "hostile"`) {
				t.Errorf("the error does not name the server and both origins: %v", err)
			}
			if strings.Contains(msg, "s3cret") {
				t.Errorf("the error shows a secret: %v", err)
			}
			for _, r := range other.seen() {
				t.Errorf("the other origin was sent %s %s with Authorization %q", r.Method, r.URL, r.Header.Get("Authorization"))
			}
		})
	}
}

// A redirect within the server's own origin is followed, with the headers.
func TestSameOriginRedirectFollowed(t *testing.T) {
	s, err := hostile.New("")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/old", http.RedirectHandler("/mcp", http.StatusPermanentRedirect))
	mux.Handle("/mcp", s.Handler())
	srv := record(t, mux)
	p := connectURL(t, srv.URL+"/old", mcpclient.WithHeaders(map[string]string{"Authorization": "Bearer t0ken"}))
	if got, err := callText(context.Background(), p, "echo", map[string]any{"text": "moved"}); err != nil || got != "moved" {
		t.Fatalf("got %q, %v", got, err)
	}
	for _, r := range srv.seen() {
		if a := r.Header.Get("Authorization"); r.URL.Path == "/mcp" && a != "Bearer t0ken" {
			t.Fatalf("a request reached the new path with Authorization %q", a)
		}
	}
}

// A message over the size limit fails the call that awaits it, naming the
// server and the limit, whatever carries it (a JSON body, an event of a
// POST's stream, the legacy SSE stream); the client never holds much more
// than the limit of it (it allocates a few times the limit in all, where
// go-sdk alone read the whole message into memory), and the connection
// goes on.
func TestHTTPMessageSizeLimit(t *testing.T) {
	const limit, size = 1 << 20, 64 << 20
	for _, tc := range []struct{ name, mode, path string }{
		{"JSON body", "", "/mcp"},
		{"event stream", "events", "/mcp"},
		{"legacy SSE", "sse", "/sse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, srv := hostile.Start(t, tc.mode)
			p := connectURL(t, srv.URL+tc.path, mcpclient.WithName("hostile"), mcpclient.WithMaxMessageSize(limit))
			ctx := context.Background()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := callText(ctx, p, "big", map[string]any{"size": size})
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), `server "hostile"`) || !strings.Contains(err.Error(), "1048576-byte") {
				t.Fatalf("got %v; want an error naming the server and the limit", err)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 16*limit {
				t.Errorf("a %d-byte message under a %d-byte limit allocated %d bytes", size, limit, grew)
			}
			if got, err := callText(ctx, p, "echo", map[string]any{"text": "still here"}); err != nil || got != "still here" {
				t.Fatalf("after the oversized message: %q, %v", got, err)
			}
		})
	}
}

// A large result costs a few times its size to read. Over an event stream
// the event is held whole below the connection (so that one over the limit
// is dropped whole), in pieces put together once, and read from there into
// one buffer of its size: about 3 times the result in all (4.4 with -race),
// where buffers grown as the bytes came took 10. A JSON body is read whole
// (4.4 times; 6.8 with -race).
func TestHTTPLargeResultInProportion(t *testing.T) {
	const size = 4 << 20
	for _, tc := range []struct {
		mode  string
		times uint64
	}{{"events", 5}, {"", 8}} {
		t.Run(cmp.Or(tc.mode, "json"), func(t *testing.T) {
			_, srv := hostile.Start(t, tc.mode)
			p := connectURL(t, srv.URL+"/mcp", mcpclient.WithName("hostile"))
			ctx := context.Background()
			call := func() {
				res, err := p.CallToolResult(ctx, "big", map[string]any{"size": size})
				if err != nil || len(res.Content) != 1 || len(res.Content[0].(*mcp.TextContent).Text) != size {
					t.Fatalf("the big call: %v", err)
				}
			}
			call() // connections and buffers made
			grew := allocated(call)
			t.Logf("a result of %d bytes allocated %.1f times its size", size, float64(grew)/size)
			if grew > tc.times*size {
				t.Errorf("a result of %d bytes allocated %d bytes; want at most %d times", size, grew, tc.times)
			}
		})
	}
}

// restartable is a streamable HTTP server restarted in place: a new go-sdk
// server, which knows none of the old one's sessions, takes over the
// address, and the old one's connections are cut.
type restartable struct {
	*httptest.Server
	handler atomic.Pointer[http.Handler]
	server  *mcp.Server
	opts    *mcp.StreamableHTTPOptions
	began   chan struct{} // a call to "wait" reached the first server
	died    chan struct{} // closed as the first server goes
}

func newRestartable(t *testing.T, opts *mcp.StreamableHTTPOptions) *restartable {
	r := &restartable{opts: opts, began: make(chan struct{}, 1), died: make(chan struct{})}
	r.serve(1)
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		(*r.handler.Load()).ServeHTTP(w, req)
	}))
	t.Cleanup(r.Close)
	return r
}

// restart makes the second server answer, cuts every connection, and ends
// the first server's sessions, as the exit of its process would.
func (r *restartable) restart() {
	old := r.server
	r.serve(2)
	r.CloseClientConnections()
	close(r.died)
	for _, ss := range slices.Collect(old.Sessions()) {
		ss.Close()
	}
}

// serve makes server number gen the one answering. Its tools "wait"
// (read-only) and "write" answer at once, but on the first server only when
// the call ends or the server goes.
func (r *restartable) serve(gen int) {
	s := newServer("restartable")
	wait := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if gen == 1 {
			// Progress opens an event stream's answer before the cut, so
			// that what breaks is the stream (a JSON answer is not begun).
			if token := req.Params.GetProgressToken(); token != nil {
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Message: "waiting"})
			}
			r.began <- struct{}{}
			select {
			case <-ctx.Done():
			case <-r.died:
			}
		}
		return textResult(fmt.Sprintf("answered by server %d", gen)), nil
	}
	s.AddTool(&mcp.Tool{Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, wait)
	addTool(s, "write", wait)
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, r.opts)
	r.server = s
	r.handler.Store(&h)
}

// A read-only call in flight when the server restarts is sent again on the
// rebuilt connection, whether the cut breaks the event stream of its answer
// (go-sdk: "request terminated without response") or its POST (an EOF);
// any other call fails saying its outcome is unknown, and the connection
// is rebuilt all the same.
func TestHTTPRestartResendsReadOnlyCall(t *testing.T) {
	for _, mode := range []struct {
		name string
		opts *mcp.StreamableHTTPOptions
	}{
		{"event streams", nil},
		{"JSON bodies", &mcp.StreamableHTTPOptions{JSONResponse: true}},
	} {
		for _, tool := range []string{"wait", "write"} {
			t.Run(mode.name+", "+tool, func(t *testing.T) {
				srv := newRestartable(t, mode.opts)
				ready := make(chan struct{}, 4)
				p := mcpclient.FromURL(srv.URL, fastReconnect, mcpclient.WithStateChange(func(st mcpclient.State, _ error) {
					if st == mcpclient.StateReady {
						ready <- struct{}{}
					}
				}))
				t.Cleanup(func() { p.Close() })
				connect(t, p)
				<-ready
				type answer struct {
					text string
					err  error
				}
				done := make(chan answer, 1)
				go func() {
					text, err := callText(context.Background(), p, tool, nil)
					done <- answer{text, err}
				}()
				<-srv.began
				srv.restart()
				got := <-done
				if tool == "wait" {
					if got.err != nil || got.text != "answered by server 2" {
						t.Fatalf("got %q, %v; want the call sent again to the restarted server", got.text, got.err)
					}
					return
				}
				var te *mcpclient.TransportError
				if !errors.As(got.err, &te) || !te.OutcomeUnknown() {
					t.Fatalf("got %q, %v; want a TransportError saying the outcome is unknown", got.text, got.err)
				}
				<-ready
				if text, err := callText(context.Background(), p, "write", nil); err != nil || text != "answered by server 2" {
					t.Fatalf("after the restart: %q, %v", text, err)
				}
			})
		}
	}
}

// A key in the server's URL shows neither in the error of a connection that
// failed nor in the log, at any level.
func TestURLSecretsRedacted(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close() // nothing listens there now
	var log proctest.Buffer
	p := mcpclient.FromURL(base+"/mcp/path-s3cret?api_key=s3cret", mcpclient.WithName("gone"),
		mcpclient.WithLogger(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	err := p.Connect(context.Background())
	if err == nil || !strings.Contains(err.Error(), base+"/…") {
		t.Fatalf("got %v; want an error showing the URL redacted", err)
	}
	for what, text := range map[string]string{"the error": err.Error(), "the log": log.String()} {
		if strings.Contains(text, "s3cret") {
			t.Errorf("%s shows the secret: %s", what, text)
		}
	}
}

// demoTransports serves the demo over streamable HTTP at /mcp (with JSON
// answers at /json) and SSE at /sse and /custom/events.
func demoTransports() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/mcp", demo.HTTPHandler())
	sse := demo.SSEHandler()
	mux.Handle("/sse", sse)
	mux.Handle("/custom/events", sse)
	mux.Handle("/json", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return demo.New() }, &mcp.StreamableHTTPOptions{JSONResponse: true}))
	return mux
}

func TestHTTPTransports(t *testing.T) {
	srv := record(t, demoTransports())
	for _, tc := range []struct {
		name, path string
		opts       []mcpclient.Option
		wantSSE    bool
	}{
		{"streamable by default", "/mcp", nil, false},
		{"streamable with JSON responses", "/json", nil, false},
		{"sse by path", "/sse", nil, true},
		{"sse forced", "/custom/events", []mcpclient.Option{mcpclient.WithTransport(mcpclient.SSE)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var through atomic.Int32
			client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				through.Add(1)
				return http.DefaultTransport.RoundTrip(r)
			})}
			before := len(srv.seen())
			opts := append([]mcpclient.Option{
				mcpclient.WithHeaders(map[string]string{"Authorization": "Bearer t0ken", "X-Tenant": "acme"}),
				mcpclient.WithHTTPClient(client),
			}, tc.opts...)
			p := mcpclient.FromURL(srv.URL+tc.path, opts...)
			if err := p.Connect(context.Background()); err != nil {
				t.Fatal(err)
			}
			inServersOrder(t, p)
			call(t, p.Handler(), "add_note", `{"title":"t","body":"b"}`)
			// The structured content is the server's JSON, whichever way the
			// result came (taken from go-sdk, or decoded by it: SSE).
			if res, err := p.CallToolResult(context.Background(), "note_stats", nil); err != nil {
				t.Error(err)
			} else if raw, ok := res.StructuredContent.(json.RawMessage); !ok || !json.Valid(raw) || !bytes.Contains(raw, []byte(`"count":`)) {
				t.Errorf("structured content %T %s; want the server's JSON", res.StructuredContent, res.StructuredContent)
			}
			p.Close()
			reqs := srv.seen()[before:]
			if len(reqs) < 3 {
				t.Fatalf("only %d requests", len(reqs))
			}
			sse := false
			for i, r := range reqs {
				if r.Header.Get("Authorization") != "Bearer t0ken" || r.Header.Get("X-Tenant") != "acme" {
					t.Fatalf("request %d (%s %s) lacks the headers: %v", i, r.Method, r.URL, r.Header)
				}
				// The legacy transport posts to the endpoint its stream named,
				// with the session in the query.
				if r.Method == http.MethodPost && r.URL.Query().Get("sessionid") != "" {
					sse = true
				}
			}
			if sse != tc.wantSSE {
				t.Errorf("spoke SSE: %v, want %v", sse, tc.wantSSE)
			}
			if through.Load() == 0 {
				t.Error("the custom HTTP client was not used")
			}
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestTransportErrorUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there now
	p := mcpclient.FromURL(url+"/mcp", mcpclient.WithName("gone"))
	err := p.Connect(context.Background())
	var te *mcpclient.TransportError
	if !errors.As(err, &te) || te.Server != "gone" || !te.Retryable() {
		t.Fatalf("got %v; want a retryable TransportError naming the server", err)
	}
}

// A URL without a path, copied from a server's "listening on" line, fails
// saying where MCP servers most often are; one with a wrong path does not
// (the path was given), nor does a server that cannot be reached.
func TestURLWithoutAPathHintsAtMCP(t *testing.T) {
	srv := httptest.NewServer(demoTransports())
	defer srv.Close()
	const note = "the URL has no path; an MCP server is most often at /mcp (streamable HTTP) or /sse (SSE)"
	for _, tc := range []struct {
		url  string
		note bool
	}{
		{srv.URL, true},
		{srv.URL + "/", true},
		{srv.URL + "/wrong", false},
		{"http://127.0.0.1:1", false},
	} {
		p := mcpclient.FromURL(tc.url)
		err := p.Connect(context.Background())
		p.Close()
		if err == nil || strings.Contains(err.Error(), note) != tc.note {
			t.Errorf("FromURL(%q): %v; want the note about the path: %v", tc.url, err, tc.note)
		}
	}
}
