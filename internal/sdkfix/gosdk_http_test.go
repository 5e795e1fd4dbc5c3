package sdkfix

// The go-sdk behaviours of its HTTP transports (see gosdk_test.go).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
)

// Capture: go-sdk's streamable HTTP connection needs go-sdk's unexported
// sessionUpdated: wrapped, it sends no protocol version header (and opens
// no stream for the server's notifications), so the HTTP transports are
// read by HTTPTap instead.
func TestGoSDKStreamableConnCannotBeWrapped(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	var mu sync.Mutex
	var versions []string
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"ping"`)) {
			mu.Lock()
			versions = append(versions, r.Header.Get("Mcp-Protocol-Version"))
			mu.Unlock()
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		inner.ServeHTTP(w, r)
	}))
	for _, wrap := range []bool{false, true} {
		var t2 mcp.Transport = &mcp.StreamableClientTransport{Endpoint: srv.URL, DisableStandaloneSSE: true}
		if wrap {
			t2 = wrapping{t2}
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
			Connect(context.Background(), t2, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		cs.Ping(context.Background(), nil)
		cs.Close()
	}
	if len(versions) != 2 || versions[0] != "2025-11-25" {
		t.Fatalf("protocol version headers %q; want the negotiated version on the unwrapped connection", versions)
	}
	if versions[1] != "" {
		t.Fatalf(upgraded + "a wrapped streamable connection is told the session's state: Capture could wrap it, and HTTPTap read the connection")
	}
}

// wrapping hides every method of its transport's connections but those of
// mcp.Connection.
type wrapping struct{ mcp.Transport }

func (w wrapping) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := w.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return struct{ mcp.Connection }{c}, nil
}

// NetworkDown, Says: go-sdk passes the failure of a legacy SSE client's
// POST on as text alone.
func TestGoSDKKeepsOnlyTheTextOfAFailure(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refusing := "http://" + l.Addr().String() + "/message"
	l.Close()
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: endpoint\ndata: %s\n\n", refusing)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	_, err = mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.SSEClientTransport{Endpoint: srv.URL}, nil)
	var ne net.Error
	switch {
	case err == nil:
		t.Fatal("connected through a refused POST")
	case errors.As(err, &ne):
		t.Fatalf(upgraded+"a failed POST keeps its type (%v): NetworkDown's texts and Says can go", err)
	case !NetworkDown(err):
		t.Fatalf(upgraded+"a failed POST says %q: update networkDown", err)
	}
}

// StreamLost: go-sdk says in text alone that the stream of a call's answer
// ended without it.
func TestGoSDKStreamLost(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"tools/call"`)) {
			w.Header().Set("Content-Type", "text/event-stream")
			return // a stream that ends at once
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		inner.ServeHTTP(w, r)
	}))
	cs := connect(t, &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "t"})
	if err == nil || !StreamLost(err) {
		t.Fatalf(upgraded+"a stream that ended without the answer is %v: update streamLost", err)
	}
}

// Undelivered: go-sdk's own failures carry JSON-RPC codes it does not
// export.
func TestGoSDKOwnCodes(t *testing.T) {
	codeOf := func(err error) int64 {
		var wire *jsonrpc.Error
		if !errors.As(err, &wire) {
			return 0
		}
		return wire.Code
	}
	// A call on a closed session: go-sdk's closing codes are not passed on.
	ct, _ := rawServer(t, nil)
	cs := connect(t, ct, nil)
	cs.Close()
	err := cs.Ping(context.Background(), nil)
	if c := codeOf(err); c != 0 || !errors.Is(err, mcp.ErrConnectionClosed) {
		t.Errorf(upgraded+"a call on a closed session is %v (code %d): Undelivered should know the closing codes", err, c)
	}
	// The transport refuses a request.
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"ping"`)) {
			http.Error(w, "busy", http.StatusInternalServerError)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
			return mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
		}, &mcp.StreamableHTTPOptions{Stateless: true}).ServeHTTP(w, r)
	}))
	cs = connect(t, &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	err = cs.Ping(context.Background(), nil)
	if c := codeOf(err); c != codeRejected || !Undelivered(err) {
		t.Errorf(upgraded+"a request the transport refused is %v (code %d): update the codes", err, c)
	}
}

// Detach: go-sdk's legacy SSE client ends its stream with the context its
// Connect was given.
func TestGoSDKSSEStreamEndsWithTheConnectContext(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	srv := serve(t, mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return server }, nil))
	ctx, cancel := context.WithCancel(context.Background())
	conn, err := (&mcp.SSEClientTransport{Endpoint: srv.URL}).Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cancel()
	read := make(chan error, 1)
	go func() {
		_, err := conn.Read(context.Background())
		read <- err
	}()
	select {
	case err := <-read:
		if err == nil {
			t.Fatal("read a message nobody sent")
		}
	case <-time.After(bound):
		conn.Close()
		<-read
		t.Fatal(upgraded + "the SSE stream outlives its Connect context: Detach can go")
	}
}

// HTTPTap: go-sdk's cap on an event ends the whole connection, and a JSON
// body is read whole whatever the cap.
func TestGoSDKEventCap(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "big", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", 8<<10)}}}, nil
		})
	for _, json := range []bool{false, true} {
		srv := serve(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
			&mcp.StreamableHTTPOptions{JSONResponse: json}))
		cs := connect(t, &mcp.StreamableClientTransport{Endpoint: srv.URL, MaxEventSize: 4 << 10}, nil)
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "big"})
		switch {
		case json && err != nil:
			t.Errorf(upgraded+"a JSON body over MaxEventSize fails (%v): HTTPTap's bound of JSON bodies may go", err)
		case !json && err == nil:
			t.Errorf(upgraded + "an event over MaxEventSize is read")
		case !json && cs.Ping(context.Background(), nil) == nil:
			t.Errorf(upgraded + "an event over MaxEventSize fails its request alone: HTTPTap's bound of events may go")
		}
		cs.Close()
	}
}

// serve starts an HTTP server that closes after the test's sessions.
func serve(t *testing.T, h http.Handler) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv
}

// SSEHandler: go-sdk's legacy SSE handler refuses a POSTed request for a
// method the server added (it checks the standard methods alone).
func TestGoSDKSSERefusesCustomMethods(t *testing.T) {
	srv := serve(t, mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return echoServer() }, nil))
	if _, err := callEcho(t, srv.URL); err == nil || !strings.Contains(err.Error(), "400 Bad Request") {
		t.Fatalf(upgraded+"a custom method over legacy SSE: %v; SSEHandler may go", err)
	}
}

// SSEHandler serves a custom method over legacy SSE, and the standard ones,
// under a protocol version the legacy transport speaks.
func TestSSEHandler(t *testing.T) {
	srv := serve(t, SSEHandler(func(*http.Request) *mcp.Server { return echoServer() }))
	cs, err := callEcho(t, srv.URL)
	if err != nil {
		t.Fatalf("a custom method over legacy SSE: %v", err)
	}
	if err := cs.Ping(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if v := cs.InitializeResult().ProtocolVersion; v >= "2026-07-28" {
		t.Errorf("protocol %s over legacy SSE", v)
	}
	// What is no JSON-RPC message, or goes to no session, is refused.
	for _, tc := range []struct {
		query, body string
		status      int
	}{{"?sessionid=none", `{"jsonrpc":"2.0","method":"ping","id":1}`, http.StatusNotFound}, {"", "{}", http.StatusBadRequest}} {
		resp, err := http.Post(srv.URL+tc.query, "application/json", strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("POST %q to %q: %s, want %d", tc.body, tc.query, resp.Status, tc.status)
		}
	}
}

type echoParams struct {
	mcp.ParamsBase
	Text string `json:"text"`
}

type echoResult struct {
	mcp.ResultBase
	Text string `json:"text"`
}

// echoServer is a server with the custom method x/echo.
func echoServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	mcp.AddReceivingCustomMethod(s, "x/echo", func(_ context.Context, _ *mcp.ServerSession, p *echoParams) (*echoResult, error) {
		return &echoResult{Text: p.Text}, nil
	})
	return s
}

// callEcho connects over legacy SSE to url and calls x/echo.
func callEcho(t *testing.T, url string) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	if err := mcp.AddSendingCustomMethod[*echoParams, *echoResult](client, "x/echo"); err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(context.Background(), &mcp.SSEClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	res, err := mcp.CallCustomMethod[*echoParams, *echoResult](context.Background(), cs, "x/echo", &echoParams{Text: "hi"})
	if err == nil && res.Text != "hi" {
		t.Fatalf("x/echo answered %q", res.Text)
	}
	return cs, err
}

// mcptool/http.go: go-sdk's streamable client sets the Mcp-Name header of
// tools/call, prompts/get and resources/read alone, not the task's id that
// the tasks extension's requests must carry (SEP-2663, Routing Headers).
func TestGoSDKNamesNoTask(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	type params struct {
		mcp.ParamsBase
		TaskID string `json:"taskId"`
	}
	mcp.AddReceivingCustomMethod(server, "tasks/get", func(context.Context, *mcp.ServerSession, *params) (*mcp.ListToolsResult, error) {
		return &mcp.ListToolsResult{Tools: []*mcp.Tool{}}, nil
	})
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true})
	var mu sync.Mutex
	method, name := "", "unset"
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Method") == "tasks/get" {
			mu.Lock()
			method, name = r.Header.Get("Mcp-Method"), r.Header.Get("Mcp-Name")
			mu.Unlock()
		}
		inner.ServeHTTP(w, r)
	}))
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	if err := mcp.AddSendingCustomMethod[*params, *mcp.ListToolsResult](client, "tasks/get"); err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := mcp.CallCustomMethod[*params, *mcp.ListToolsResult](context.Background(), cs, "tasks/get", &params{TaskID: "t1"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if method != "tasks/get" {
		t.Fatalf("Mcp-Method %q: want tasks/get on protocol 2026-07-28", method)
	}
	if name != "" {
		t.Fatalf(upgraded+"it names the task (Mcp-Name %q): the exchange need not", name)
	}
}

// Rebound: go-sdk's streamable HTTP handler, on a loopback address,
// refuses with 403 exactly the Host headers Rebound calls rebound.
func TestGoSDKRefusesReboundHosts(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	srv := serve(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true}))
	for _, host := range []string{"localhost", "localhost:8080", "127.0.0.1:1", "[::1]:80", "[::1]", "127.0.0.2",
		"[::ffff:127.0.0.1]:80", "LOCALHOST", "localhost.:80", "127.000.0.1", "evil.example", "evil.example:80", "[localhost]"} {
		req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("Host %q: %v", host, err)
		}
		resp.Body.Close()
		// The request as the server saw it: at its loopback address.
		seen := req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, srv.Listener.Addr()))
		if refused := resp.StatusCode == http.StatusForbidden; refused != Rebound(seen) {
			t.Errorf("Host %q: go-sdk answered %s; Rebound says %v", host, resp.Status, Rebound(seen))
		}
	}
}

// Accepts: go-sdk's streamable HTTP handler takes a POST with exactly the
// headers Accepts takes (it answers the others 4xx before reading them).
func TestGoSDKAcceptsHeaders(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	srv := serve(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true}))
	for _, h := range [][2]string{
		{"application/json", "application/json, text/event-stream"},
		{"Application/JSON; charset=utf-8", "*/*"},
		{"application/json", "application/*;q=0.5,text/*"},
		{"application/json;", "application/json;;, text/event-stream; =x"},
		{"application/json; =x", "application/json, text/event-stream"},
		{"application/json", "application/json"},
		{"application/json", "text/event-stream"},
		{"application/json", "TEXT/EVENT-STREAM , APPLICATION/JSON"},
		{"text/plain", "application/json, text/event-stream"},
		{"", "application/json, text/event-stream"},
	} {
		req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", h[0])
		req.Header.Set("Accept", h[1])
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if taken := resp.StatusCode == http.StatusOK; taken != Accepts(req.Header) {
			t.Errorf("Content-Type %q, Accept %q: go-sdk answered %s; Accepts says %v", h[0], h[1], resp.Status, Accepts(req.Header))
		}
	}
}

// Refusal: go-sdk reports an HTTP status by its text alone, so that the
// code, a Retry-After and the body are lost; and a successful answer of a
// Content-Type MCP does not use (a web page) closes the connection, so that
// the caller learns only that the client is closing.
func TestGoSDKKeepsOnlyTheStatusText(t *testing.T) {
	unavailable := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "7")
		http.Error(w, "down for a deploy", http.StatusServiceUnavailable)
	}))
	_, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: unavailable.URL}, nil)
	switch {
	case err == nil:
		t.Fatal("connected to a server answering 503")
	case !strings.Contains(err.Error(), "Service Unavailable"):
		t.Fatalf(upgraded+"a 503 says %q, not its status's text", err)
	case strings.Contains(err.Error(), "503") || strings.Contains(err.Error(), "7") || strings.Contains(err.Error(), "deploy"):
		t.Fatalf(upgraded+"a 503 says %q: go-sdk reports more than the status's text, which the tap's Refusal may no longer need to", err)
	}
	page := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><body>Sign in</body></html>")
	}))
	_, err = mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: page.URL}, nil)
	switch {
	case err == nil:
		t.Fatal("connected to a web page")
	case !errors.Is(err, mcp.ErrConnectionClosed):
		t.Fatalf(upgraded+"a web page leaves the connection open (%v): the tap's Refusal of a Content-Type may go", err)
	}
}

// Refusal: go-sdk wraps the error of an HTTP request that fails with %w,
// so that a typed error the client's RoundTripper returns reaches the
// caller whole; but for the legacy SSE transport's POST of initialize,
// which closes the connection, in text alone ([HTTPTap.Refused]).
func TestGoSDKWrapsRoundTripErrors(t *testing.T) {
	mine := errors.New("the tap's own")
	refusing := func(method string) *http.Client {
		return &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
			if r.Method == method {
				return nil, mine
			}
			return http.DefaultTransport.RoundTrip(r)
		})}
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	streamable := serve(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	sse := serve(t, SSEHandler(func(*http.Request) *mcp.Server { return server }))
	for name, tr := range map[string]mcp.Transport{
		"streamable POST": &mcp.StreamableClientTransport{Endpoint: streamable.URL, HTTPClient: refusing(http.MethodPost)},
		"legacy SSE GET":  &mcp.SSEClientTransport{Endpoint: sse.URL, HTTPClient: refusing(http.MethodGet)},
		"legacy SSE POST": &mcp.SSEClientTransport{Endpoint: sse.URL, HTTPClient: refusing(http.MethodPost)},
	} {
		_, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), tr, nil)
		switch textOnly := name == "legacy SSE POST"; {
		case err == nil:
			t.Errorf("%s: connected through a request that failed", name)
		case !textOnly && !errors.Is(err, mine):
			t.Errorf(upgraded+"%s: the RoundTripper's error is lost (%v): the tap's Refusal must reach mcptool another way", name, err)
		case textOnly && errors.Is(err, mine):
			t.Errorf(upgraded+"%s: the RoundTripper's error is kept whole: HTTPTap.Refused's reading of the text may go", name)
		case textOnly && !Says(err, mine.Error()) && !Says(err, "client is closing"):
			// Which of go-sdk's goroutines sees the failed POST first
			// decides between its text and the connection it closed
			// (HTTPTap.Refused takes the tap's last refusal then).
			t.Errorf(upgraded+"%s: the RoundTripper's error is lost, its text too, and the connection was not closed for it (%v): HTTPTap.Refused cannot find it", name, err)
		}
	}
}

// sessionGone: go-sdk reads a 404 in a session whose body is a JSON-RPC
// error (the Python SDK's, for a session that is over) as the request's own
// failure, and keeps the session, which fails every request after. When
// this test fails, go-sdk takes such a 404 for the session's end, and
// sessionGone may go.
func TestGoSDKKeepsASessionA404AnswersWithAnError(t *testing.T) {
	_, srv := hostile.Start(t, "forgets-session")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "peek"}); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the server forgot the session
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "peek"})
		if errors.Is(err, mcp.ErrSessionMissing) || !strings.Contains(fmt.Sprint(err), "Session has been terminated") {
			t.Fatalf(upgraded+"a 404 with a JSON-RPC error in a session: %v, not the call's error: sessionGone may go", err)
		}
	}
}

// The tap drops the body of a 404 in a session, so that go-sdk ends the
// session, but for a "method not found", which answers the request; and
// leaves a 404 outside a session as it is.
func TestSessionGone(t *testing.T) {
	for _, c := range []struct {
		session, body string
		kept          bool
	}{
		{"s1", hostile.SessionNotFound, false},
		{"s1", `{"jsonrpc":"2.0","id":3,"error":{"code":-32001,"message":"Session not found"}}`, false},
		{"s1", "session not found", false},
		{"s1", `{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"method not found"}}`, true},
		{"", hostile.SessionNotFound, true},
	} {
		req := httptest.NewRequest("POST", "http://server.example/mcp", nil)
		if c.session != "" {
			req.Header.Set("Mcp-Session-Id", c.session)
		}
		resp := &http.Response{StatusCode: http.StatusNotFound, Body: io.NopCloser(strings.NewReader(c.body))}
		sessionGone(req, resp)
		got, _ := io.ReadAll(resp.Body)
		if kept := string(got) == c.body; kept != c.kept {
			t.Errorf("session %q, body %s: read %q, want kept %v", c.session, c.body, got, c.kept)
		}
	}
}

// The gateway (gateway/sessions.go) cancels a session's calls itself:
// go-sdk's stateful handler lets a call run on when the client goes away
// from the POST that carries it (a TODO of its servePOST), and its DELETE
// closes the session only once its calls are done, without cancelling
// them. Here, in a bubble: once everything is blocked, the call's context
// is still live and the DELETE has not returned; a cancellation sent as a
// client sends one ends it.
func TestGoSDKLetsASessionsCallsRunOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
		started := make(chan context.Context, 1)
		mcp.AddTool(server, &mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			started <- ctx
			<-ctx.Done()
			return nil, nil, ctx.Err()
		})
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
		post := func(ctx context.Context, id, body string) *httptest.ResponseRecorder {
			r := httptest.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			if id != "" {
				r.Header.Set("Mcp-Session-Id", id)
				r.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			return rec
		}
		id := post(t.Context(), "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`).Header().Get("Mcp-Session-Id")
		post(t.Context(), id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		gone, goAway := context.WithCancel(t.Context())
		go post(gone, id, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{}}}`)
		call := <-started
		goAway()
		deleted := make(chan struct{})
		go func() {
			r := httptest.NewRequest(http.MethodDelete, "http://127.0.0.1/mcp", nil)
			r.Header.Set("Mcp-Session-Id", id)
			h.ServeHTTP(httptest.NewRecorder(), r)
			close(deleted)
		}()
		synctest.Wait()
		select {
		case <-call.Done():
			t.Fatal("go-sdk cancels a session's call when its client goes away or at DELETE: gateway/sessions.go's cancelCalls may go")
		case <-deleted:
			t.Fatal("go-sdk's DELETE no longer waits for the session's calls")
		default:
		}
		post(t.Context(), id, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
		<-deleted
		if call.Err() == nil {
			t.Fatal("the call ended uncancelled")
		}
	})
}
