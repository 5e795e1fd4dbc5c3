package streamable

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
	"golang.org/x/oauth2"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// echoServer is a go-sdk server with the tool echo and the tool tagged,
// whose arguments go in headers too (x-mcp-header).
func echoServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1"}, nil)
	echo := func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
	}
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}, echo)
	s.AddTool(&mcp.Tool{Name: "tagged", InputSchema: json.RawMessage(taggedSchema)}, echo)
	return s
}

const taggedSchema = `{"type":"object","properties":{
	"region":{"type":"string","x-mcp-header":"Region"},
	"n":{"type":"integer","x-mcp-header":"N"},
	"on":{"type":"boolean","x-mcp-header":"On"},
	"note":{"type":"string","x-mcp-header":"Note"},
	"inner":{"type":"object","properties":{"id":{"type":"string","x-mcp-header":"Inner-Id"}}},
	"plain":{"type":"string"}}}`

// A seen request is one a recorder kept: its method, headers and body.
type seen struct {
	method string
	header http.Header
	body   string
}

// recorder serves h, keeping each request; a tools/call it answers
// itself, for the headers it carries alone.
type recorder struct {
	mu   sync.Mutex
	seen []seen
}

func (r *recorder) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(strings.NewReader(string(body)))
		r.mu.Lock()
		r.seen = append(r.seen, seen{req.Method, req.Header.Clone(), string(body)})
		r.mu.Unlock()
		if req.Header.Get("Mcp-Method") == "tools/call" {
			var m struct{ ID json.RawMessage }
			json.Unmarshal(body, &m)
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[]}}`, m.ID)
			return
		}
		h.ServeHTTP(w, req)
	})
}

func (r *recorder) requests() []seen {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.seen)
}

func serve(t *testing.T, opts *mcp.StreamableHTTPOptions) (*httptest.Server, *recorder) {
	t.Helper()
	s := echoServer()
	rec := &recorder{}
	srv := httptest.NewServer(rec.wrap(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, opts)))
	t.Cleanup(srv.Close)
	return srv, rec
}

func connect(t *testing.T, tr mcp.Transport, opts *mcp.ClientSessionOptions) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), tr, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// listed returns the input schemas of the tools cs lists, as the
// provider's catalog keeps them.
func listed(t *testing.T, cs *mcp.ClientSession) func(string) json.RawMessage {
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]json.RawMessage{}
	for _, tool := range res.Tools {
		schemas[tool.Name], _ = json.Marshal(tool.InputSchema)
	}
	return func(name string) json.RawMessage { return schemas[name] }
}

// mcpHeaders are the Mcp-* headers of the tools/call requests seen.
func mcpHeaders(rec *recorder) []http.Header {
	var out []http.Header
	for _, r := range rec.requests() {
		if r.header.Get("Mcp-Method") != "tools/call" {
			continue
		}
		h := http.Header{}
		for k, v := range r.header {
			if strings.HasPrefix(k, "Mcp-") && k != "Mcp-Session-Id" {
				h[k] = v
			}
		}
		out = append(out, h)
	}
	return out
}

// A call of protocol 2026-07-28 carries the headers go-sdk's transport
// gives it: its method, its tool, and each argument the tool's schema
// marks x-mcp-header, encoded alike.
func TestHeadersAgreeWithGoSDK(t *testing.T) {
	calls := []map[string]any{
		{"region": "eu", "n": 42, "on": true, "note": "café", "inner": map[string]any{"id": "x"}, "plain": "p"},
		{"region": " padded ", "n": 1.5, "on": "yes", "note": "=?base64?abc?="},
		{"n": 9007199254740993, "note": "line\nbreak", "inner": "not an object"},
		{"region": nil, "n": -7},
	}
	var got [2][]http.Header
	for i, ours := range []bool{false, true} {
		srv, rec := serve(t, &mcp.StreamableHTTPOptions{Stateless: true})
		var tr mcp.Transport = &mcp.StreamableClientTransport{Endpoint: srv.URL}
		var schemas *func(string) json.RawMessage
		if ours {
			st := &Transport{Endpoint: srv.URL, Client: http.DefaultClient}
			schemas = &st.InputSchema
			tr = st
		}
		cs := connect(t, tr, nil)
		if v := cs.InitializeResult().ProtocolVersion; v != standardVersion {
			t.Fatalf("protocol %s", v)
		}
		if schemas != nil {
			*schemas = listed(t, cs)
		} else {
			listed(t, cs) // go-sdk keeps the tools it listed
		}
		for _, args := range calls {
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "tagged", Arguments: args}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"region": "eu"}}); err != nil {
			t.Fatal(err)
		}
		got[i] = mcpHeaders(rec)
	}
	if len(got[0]) != len(calls)+1 || !slices.EqualFunc(got[0], got[1], func(a, b http.Header) bool { return maps.EqualFunc(a, b, slices.Equal) }) {
		t.Fatalf("headers\n%v\nwant go-sdk's\n%v", got[1], got[0])
	}
}

// Against a server that keeps sessions (2025-11-25): the session's id goes
// with every request, the standalone stream is open before the session
// goes on (a server may send on it at once), and Close ends the session
// with a DELETE.
func TestSessionStandaloneStreamAndDelete(t *testing.T) {
	srv, rec := serve(t, nil)
	cs := connect(t, &Transport{Endpoint: srv.URL, Client: http.DefaultClient}, nil)
	if cs.ID() == "" {
		t.Fatal("no session id")
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	var get, del bool
	for _, r := range rec.requests() {
		handshake := strings.Contains(r.body, `"initialize"`) || strings.Contains(r.body, `"server/discover"`)
		switch {
		case strings.Contains(r.body, `"notifications/initialized"`) && !get:
			t.Error("the session was initialized before its standalone stream was open")
		case r.method == http.MethodGet:
			get = r.header.Get("Accept") == "text/event-stream" && r.header.Get("Mcp-Session-Id") == cs.ID()
		case r.method == http.MethodDelete:
			del = r.header.Get("Mcp-Session-Id") == cs.ID()
		case r.header.Get("Mcp-Session-Id") != cs.ID() && !handshake:
			t.Errorf("%s %s without the session's id", r.method, r.body)
		}
	}
	if !get || !del {
		t.Fatalf("standalone stream %v, DELETE %v", get, del)
	}
}

// The server's notifications reach the session on the standalone stream.
func TestStandaloneStreamCarriesNotifications(t *testing.T) {
	s := echoServer()
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	defer srv.Close()
	logged := make(chan string, 1)
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) { logged <- fmt.Sprint(req.Params.Data) },
	})
	cs, err := c.Connect(context.Background(), &Transport{Endpoint: srv.URL, Client: http.DefaultClient}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	for ss := range s.Sessions() {
		// Sent outside any request: only the standalone stream carries it.
		if err := ss.Log(context.Background(), &mcp.LoggingMessageParams{Level: "info", Data: "hello"}); err != nil {
			t.Fatal(err)
		}
	}
	if got := <-logged; got != "hello" {
		t.Fatalf("logged %q", got)
	}
}

// handlerServer serves h alone, for the answers no go-sdk server gives.
func handlerServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// idOfBody reads the id of the JSON-RPC request r carries.
func idOfBody(r *http.Request) string {
	var m struct{ ID json.RawMessage }
	json.NewDecoder(r.Body).Decode(&m)
	return string(m.ID)
}

// A call whose stream ends after an event with an id, before its answer,
// is resumed with a GET from that id (Last-Event-ID), where the answer
// comes; one whose stream ends with no id fails, saying so.
func TestAStreamIsResumedFromItsLastEvent(t *testing.T) {
	for _, resumable := range []bool{true, false} {
		var lastID string
		srv := handlerServer(t, func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.Method == http.MethodGet:
				lastID = r.Header.Get("Last-Event-ID")
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, "id: 8\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ok\":true}}\n\n")
			case r.Method == http.MethodPost:
				id := idOfBody(r)
				w.Header().Set("Content-Type", "text/event-stream")
				if resumable {
					fmt.Fprint(w, "id: 7\ndata:\n\n")
				}
				_ = id // the answer never comes on this stream
			}
		})
		c, err := (&Transport{Endpoint: srv.URL, Client: http.DefaultClient}).Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		id, _ := jsonrpc.MakeID(float64(1))
		if err := c.Write(context.Background(), &jsonrpc.Request{ID: id, Method: "ping", Params: json.RawMessage(`{}`)}); err != nil {
			t.Fatal(err)
		}
		msg, err := c.Read(context.Background())
		resp, _ := msg.(*jsonrpc.Response)
		switch {
		case err != nil || resp == nil:
			t.Fatalf("resumable %v: %v, %v", resumable, msg, err)
		case resumable && (resp.Error != nil || string(resp.Result) != `{"ok":true}` || lastID != "7"):
			t.Fatalf("resumed from %q: %s, %v", lastID, resp.Result, resp.Error)
		case !resumable && (resp.Error == nil || !strings.Contains(resp.Error.Error(), "request terminated without response")):
			t.Fatalf("not resumable: %v", resp.Error)
		}
		c.Close()
	}
}

// A session the server forgot (404 to its id) ends the connection with
// mcp.ErrSessionMissing, and Close then sends no DELETE; a status the
// server gives for a while (503) fails the request alone.
func TestSessionMissingAndTransientStatus(t *testing.T) {
	var mu sync.Mutex
	status, deletes := 0, 0
	srv := handlerServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.Method == http.MethodDelete {
			deletes++
			return
		}
		id := idOfBody(r)
		w.Header().Set("Mcp-Session-Id", "s1")
		if status != 0 {
			w.WriteHeader(status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, id)
	})
	c, _ := (&Transport{Endpoint: srv.URL, Client: http.DefaultClient}).Connect(context.Background())
	defer c.Close()
	call := func(n float64) error {
		id, _ := jsonrpc.MakeID(n)
		return c.Write(context.Background(), &jsonrpc.Request{ID: id, Method: "ping"})
	}
	if err := call(1); err != nil {
		t.Fatal(err)
	}
	if msg, err := c.Read(context.Background()); err != nil || msg.(*jsonrpc.Response).Error != nil {
		t.Fatalf("%v, %v", msg, err)
	}
	mu.Lock()
	status = http.StatusServiceUnavailable
	mu.Unlock()
	if err := call(2); !errors.Is(err, errRejected) {
		t.Fatalf("503: %v; want the request rejected alone", err)
	}
	mu.Lock()
	status = http.StatusNotFound
	mu.Unlock()
	if err := call(3); !errors.Is(err, mcp.ErrSessionMissing) {
		t.Fatalf("404: %v; want mcp.ErrSessionMissing", err)
	}
	if _, err := c.Read(context.Background()); !errors.Is(err, mcp.ErrSessionMissing) {
		t.Fatalf("Read after the 404: %v", err)
	}
	c.Close()
	mu.Lock()
	defer mu.Unlock()
	if deletes != 0 {
		t.Fatalf("%d DELETE for a session the server forgot", deletes)
	}
}

// oauth is an OAuth handler whose token the server takes once Authorize
// has run.
type oauth struct {
	mu         sync.Mutex
	token      string
	authorized int
}

func (o *oauth) TokenSource(context.Context) (oauth2.TokenSource, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: o.token}), nil
}

func (o *oauth) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	resp.Body.Close()
	o.mu.Lock()
	defer o.mu.Unlock()
	o.authorized++
	o.token = "good"
	return nil
}

// A request refused 401 runs the OAuth handler's flow and is sent again,
// once, with its new token.
func TestOAuthFlow(t *testing.T) {
	s := echoServer()
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	srv := handlerServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer good" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		inner.ServeHTTP(w, r)
	})
	h := &oauth{token: "stale"}
	cs := connect(t, &Transport{Endpoint: srv.URL, Client: http.DefaultClient, OAuth: h}, nil)
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if h.authorized != 1 {
		t.Fatalf("authorized %d times", h.authorized)
	}
}

// pipe is a RoundTripper answering each POST with an event stream that
// carries the answer and then stays open, until its reader closes it.
type pipe struct{ cut chan struct{} }

func (p pipe) RoundTrip(req *http.Request) (*http.Response, error) {
	var m struct{ ID json.RawMessage }
	json.NewDecoder(req.Body).Decode(&m)
	r, w := io.Pipe()
	go fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}\n\n", m.ID)
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: closing{r, p.cut}, Request: req}, nil
}

// closing is a body that says when it is closed.
type closing struct {
	*io.PipeReader
	closed chan struct{}
}

func (c closing) Close() error {
	select {
	case c.closed <- struct{}{}:
	default:
	}
	return c.PipeReader.Close()
}

// A stream that goes on after its answer is read on for finishWithin,
// then cut: the call has its answer without waiting for the stream's end.
func TestAStreamOpenAfterItsAnswerIsCut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := pipe{cut: make(chan struct{}, 1)}
		c, _ := (&Transport{Endpoint: "http://mcp.example/mcp", Client: &http.Client{Transport: p}}).Connect(context.Background())
		defer c.Close()
		id, _ := jsonrpc.MakeID(float64(1))
		start := time.Now()
		if err := c.Write(context.Background(), &jsonrpc.Request{ID: id, Method: "ping"}); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took != finishWithin {
			t.Fatalf("Write took %v; want finishWithin", took)
		}
		select {
		case <-p.cut:
		default:
			t.Fatal("the stream was not cut")
		}
		if msg, err := c.Read(context.Background()); err != nil || msg.(*jsonrpc.Response).ID != id {
			t.Fatalf("%v, %v", msg, err)
		}
	})
}

// Close ends a call whose answer has not come, and the standalone stream.
func TestCloseEndsWhatIsRead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hang := roundTripper(func(req *http.Request) (*http.Response, error) {
			r, _ := io.Pipe() // the answer never comes
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: r, Request: req}, nil
		})
		c, _ := (&Transport{Endpoint: "http://mcp.example/mcp", Client: &http.Client{Transport: hang}}).Connect(context.Background())
		id, _ := jsonrpc.MakeID(float64(1))
		done := make(chan error)
		go func() { done <- c.Write(context.Background(), &jsonrpc.Request{ID: id, Method: "ping"}) }()
		synctest.Wait()
		c.Close()
		<-done
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// writeCounter counts the writes made to the connections it dials.
type writeCounter struct {
	mu     sync.Mutex
	writes int
}

type countedConn struct {
	net.Conn
	c *writeCounter
}

func (c countedConn) Write(p []byte) (int, error) {
	c.c.mu.Lock()
	c.c.writes++
	c.c.mu.Unlock()
	return c.Conn.Write(p)
}

func (w *writeCounter) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writes
}

// A message goes out in one write, its headers with its body: net/http
// sends the headers of a body it does not know to be in memory ahead of
// it, which costs a write and the server a read more a message.
func TestAMessageIsOneWrite(t *testing.T) {
	srv, _ := serve(t, &mcp.StreamableHTTPOptions{Stateless: true})
	wc := &writeCounter{}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return countedConn{c, wc}, nil
	}
	t.Cleanup(tr.CloseIdleConnections)
	cs := connect(t, &Transport{Endpoint: srv.URL, Client: &http.Client{Transport: tr}}, nil)
	for range 3 {
		before := wc.count()
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}}); err != nil {
			t.Fatal(err)
		}
		if n := wc.count() - before; n != 1 {
			t.Fatalf("a call went out in %d writes, want 1", n)
		}
	}
}

// The answer to a POST goes to the function given to Answer, on the
// goroutine of the Write that sent the request, and not to Read.
func TestAnswerTakesTheAnswerOfAPost(t *testing.T) {
	srv, _ := serve(t, &mcp.StreamableHTTPOptions{Stateless: true})
	conn, err := (&Transport{Endpoint: srv.URL, Client: http.DefaultClient}).Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := conn.(*Conn)
	var taken *jsonrpc.Response
	c.Answer(func(r *jsonrpc.Response) bool { taken = r; return true })
	id, _ := jsonrpc.MakeID("ours")
	req := &jsonrpc.Request{ID: id, Method: "tools/call", Params: json.RawMessage(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"echo"}`)}
	if err := c.Write(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if taken == nil || taken.ID != id || string(taken.Result) != `{"content":[]}` {
		t.Fatalf("taken %+v", taken)
	}
	if n := len(c.incoming); n != 0 {
		t.Fatalf("%d messages left for Read", n)
	}
}
