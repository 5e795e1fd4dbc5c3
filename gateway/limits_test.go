package gateway_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/internal/testing/oauthtest"
	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
)

// A request whose JSON nests past RequestDepth or holds more values than
// RequestValues is refused before anything decodes it, over both
// generations, naming the bound: its memory is in proportion to its bytes.
// Before, a body under 4 MiB of 1.4 million {} in a call's arguments was
// decoded whole for the schema check (+160 MiB); here it costs the bytes
// read and little more.
func TestRequestJSONIsBoundedBeforeDecoding(t *testing.T) {
	a := newUpstream(t, "a")
	url, _ := serve(t, start(t, []config.Server{a.config(true)}, nil))
	deep := any("x")
	for range 70 {
		deep = []any{deep}
	}
	for _, v := range versions {
		cs := connect(t, url, v, nil, nil)
		for _, tc := range []struct {
			what  string
			args  map[string]any
			bound string
		}{
			{"many values", map[string]any{"text": "x", "pad": make([]any, 70000)}, "(RequestValues, 65536)"},
			{"deep nesting", map[string]any{"text": "x", "pad": deep}, "(RequestDepth, 64)"},
		} {
			_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "a_echo", Arguments: tc.args})
			if err == nil || !strings.Contains(err.Error(), tc.bound) {
				t.Errorf("%s: %s: %v, want a refusal naming %s", v, tc.what, err, tc.bound)
			}
		}
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "a_echo", Arguments: map[string]any{"text": "x"}}); err != nil {
			t.Errorf("%s: a call after the refusals: %v", v, err)
		}
	}

	empties := strings.Repeat("{},", 1_390_000)
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a_echo","arguments":{"text":"x","pad":[` + empties + `{}]},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "a_echo")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("a body of %d bytes, 1.4M {}: %d MiB allocated while it was answered (%.1fx its size)", len(body), allocated>>20, float64(allocated)/float64(len(body)))
	if resp.StatusCode != http.StatusBadRequest || !bytes.Contains(answer, []byte(`"id":7`)) || !bytes.Contains(answer, []byte("(RequestValues, 65536)")) {
		t.Errorf("answered %s: %s", resp.Status, answer)
	}
	// The body is read once, into a buffer that grows to its size, and
	// the client's copy of it is here too: a few times its size, where
	// decoding it took 40.
	if allocated > 8*uint64(len(body)) {
		t.Errorf("%d bytes allocated for a body of %d", allocated, len(body))
	}
}

// A request is counted against its client's rate limit before anything
// decodes it: over the limit, a body go-sdk would refuse as malformed is
// refused as over the limit, in both generations, and a notification is
// never refused. Before, the limit was counted in go-sdk's middleware,
// after go-sdk had read and decoded the whole body.
func TestRateLimitIsCountedBeforeDecoding(t *testing.T) {
	a := newUpstream(t, "a")
	g := start(t, []config.Server{a.config(true)}, &gateway.Options{
		RateLimit: &gateway.RateLimit{Rate: 1e-6, Burst: 2},
		Clients: map[string]gateway.Client{
			"alice": {Token: "tok-alice"},
			"bob":   {Token: "tok-bob"},
		},
	})
	h := g.Handler()
	post := func(token string, r *http.Request) *httptest.ResponseRecorder {
		r.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec
	}
	overLimit := func(what string, rec *httptest.ResponseRecorder) {
		t.Helper()
		if !strings.Contains(rec.Body.String(), `"code":-31429`) || !strings.Contains(rec.Body.String(), "rate limit exceeded") {
			t.Errorf("%s: %d %s, want it refused as over the limit", what, rec.Code, rec.Body)
		}
	}
	malformed := `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"x":}}`

	// alice, stateless: her burst of two, then a malformed body.
	for range 2 {
		if rec := listTools(h, "tok-alice"); strings.Contains(rec.Body.String(), `"error"`) {
			t.Fatalf("within the burst: %s", rec.Body)
		}
	}
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(malformed))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	r.Header.Set("Mcp-Method", "tools/list")
	overLimit("2026-07-28, a malformed body", post("tok-alice", r))

	// bob, in a session: initialize (not counted) and two pings, then a
	// malformed body.
	open := sessionRequest(t.Context(), "http://127.0.0.1/mcp", "", initialize)
	rec := post("tok-bob", open)
	id := rec.Header().Get("Mcp-Session-Id")
	post("tok-bob", sessionRequest(t.Context(), "http://127.0.0.1/mcp", id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	for i := range 2 {
		if rec := post("tok-bob", sessionRequest(t.Context(), "http://127.0.0.1/mcp", id, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i+2))); strings.Contains(rec.Body.String(), `"error"`) {
			t.Fatalf("within the burst: %s", rec.Body)
		}
	}
	overLimit("2025-11-25, a malformed body", post("tok-bob", sessionRequest(t.Context(), "http://127.0.0.1/mcp", id, malformed)))
	overLimit("2025-11-25, a ping", post("tok-bob", sessionRequest(t.Context(), "http://127.0.0.1/mcp", id, `{"jsonrpc":"2.0","id":6,"method":"ping"}`)))
	rec = post("tok-bob", sessionRequest(t.Context(), "http://127.0.0.1/mcp", id, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":6}}`))
	if rec.Code != http.StatusAccepted {
		t.Errorf("a notification over the limit: %d %s, want it taken (202)", rec.Code, rec.Body)
	}
	del := httptest.NewRequest(http.MethodDelete, "http://127.0.0.1/mcp", nil)
	del.Header.Set("Mcp-Session-Id", id)
	post("tok-bob", del)
}

// Each client may have CallsPerClient requests served at once, and all of
// them Calls; a request past a bound waits in its client's queue of
// CallQueue, then is refused, naming the bounds; as calls end, the queued
// ones are served. Over both generations. Before, nothing bounded the
// calls in flight.
func TestCallsInFlightAreBoundedAndQueued(t *testing.T) {
	a := newUpstream(t, "a")
	g := start(t, []config.Server{a.config(true)}, &gateway.Options{
		Limits: gateway.Limits{Calls: 3, CallsPerClient: 2, CallQueue: 1},
		Clients: map[string]gateway.Client{
			"alice": {Token: "tok-alice"},
			"bob":   {Token: "tok-bob"},
		},
	})
	url, _ := serve(t, g)
	var once sync.Once
	release := func() { once.Do(func() { close(a.release) }) }
	t.Cleanup(release) // what a failure left blocked
	alice := connect(t, url, versions[0], nil, &http.Client{Transport: oauthtest.Bearer("tok-alice")})
	bob := connect(t, url, versions[1], nil, &http.Client{Transport: oauthtest.Bearer("tok-bob")})
	var wg sync.WaitGroup
	defer wg.Wait()
	results := make(chan error, 10)
	call := func(cs *mcp.ClientSession) {
		wg.Go(func() {
			_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "a_block", Arguments: map[string]any{}})
			results <- err
		})
	}
	refusal := func(who string, want ...string) {
		t.Helper()
		select {
		case err := <-results:
			for _, w := range want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("%s: %v, want a refusal saying %q", who, err, w)
				}
			}
		case <-time.After(proctest.Bound):
			t.Errorf("%s: no refusal after %v", who, proctest.Bound)
		}
	}
	call(alice)
	call(alice)
	<-a.blocked
	<-a.blocked
	// One of these two waits in alice's queue, the other is refused.
	call(alice)
	call(alice)
	refusal("alice's fourth call", `2 requests being served for client "alice", the bound (CallsPerClient, 2)`, "(CallQueue, 1)")
	call(bob)
	<-a.blocked
	call(bob)
	call(bob)
	refusal("bob's third call", "3 requests being served by the gateway, the bound (Calls, 3)", `1 waiting for client "bob"`)
	release()
	for range 2 {
		<-a.blocked // the queued calls, served as slots come free
	}
	for range 5 {
		if err := <-results; err != nil {
			t.Errorf("a call served: %v", err)
		}
	}
}

// The bytes of request bodies held are counted as they arrive, per client
// (RequestBytesPerClient) and in all (RequestBytes): a body that would
// pass a bound is refused, naming it, with a status that says to retry
// (429 for the client's own, 503 for the gateway's). Before, 150 bodies of
// 4 MiB sent at once were all held (2.7 GB).
func TestRequestBytesAreBoundedAsTheyArrive(t *testing.T) {
	g := start(t, nil, &gateway.Options{
		Limits: gateway.Limits{RequestBytesPerClient: 1 << 20, RequestBytes: 3 << 19},
		Clients: map[string]gateway.Client{
			"alice": {Token: "tok-alice"},
			"bob":   {Token: "tok-bob"},
		},
	})
	h := g.Handler()
	post := func(token string, body io.Reader) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", body)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec
	}
	// Alice's first body arrives up to 900 KiB, then stalls.
	stalled := &stallingBody{data: bytes.Repeat([]byte(" "), 900<<10), stalled: make(chan struct{}), go_: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		post("tok-alice", stalled)
	}()
	<-stalled.stalled
	if rec := post("tok-alice", bytes.NewReader(bytes.Repeat([]byte(" "), 200<<10))); rec.Code != http.StatusTooManyRequests ||
		!strings.Contains(rec.Body.String(), `for client \"alice\"`) || !strings.Contains(rec.Body.String(), "(RequestBytesPerClient, 1048576)") ||
		rec.Header().Get("Retry-After") == "" {
		t.Errorf("alice's second body: %d %s", rec.Code, rec.Body)
	}
	if rec := post("tok-bob", bytes.NewReader(bytes.Repeat([]byte(" "), 700<<10))); rec.Code != http.StatusServiceUnavailable ||
		!strings.Contains(rec.Body.String(), "(RequestBytes, 1572864)") {
		t.Errorf("bob's body: %d %s", rec.Code, rec.Body)
	}
	close(stalled.go_)
	<-done
	if rec := post("tok-bob", bytes.NewReader(bytes.Repeat([]byte(" "), 700<<10))); rec.Code == http.StatusServiceUnavailable || rec.Code == http.StatusTooManyRequests {
		t.Errorf("bob's body once alice's is answered: %d %s", rec.Code, rec.Body)
	}
}

// A stallingBody gives data, then blocks until go_ is closed, saying so on
// stalled, then ends.
type stallingBody struct {
	data    []byte
	stalled chan struct{}
	go_     chan struct{}
	once    sync.Once
}

func (b *stallingBody) Read(p []byte) (int, error) {
	if len(b.data) > 0 {
		n := copy(p, b.data)
		b.data = b.data[n:]
		return n, nil
	}
	b.once.Do(func() { close(b.stalled) })
	<-b.go_
	return 0, io.EOF
}

// A request whose body does not arrive within BodyRead is answered 408 and
// its connection closed, by the handler alone (the server here sets no
// timeout but httptest's). Before, a client that sent its headers and a
// byte now and then held the connection, a goroutine and a buffer as long
// as it liked.
func TestASlowBodyIsCutOff(t *testing.T) {
	g := start(t, nil, &gateway.Options{Limits: gateway.Limits{BodyRead: 200 * time.Millisecond}})
	url, srv := serve(t, g)
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 4194304\r\n\r\n{", strings.TrimPrefix(url, srv.URL))
	// The outcome, not its time: the connection is answered and closed
	// (the bound only keeps a failure from hanging).
	c.SetReadDeadline(time.Now().Add(proctest.Bound))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer to a body that stalled: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout || !bytes.Contains(body, []byte("did not arrive within 200ms (the gateway's bound BodyRead)")) {
		t.Errorf("answered %s: %s", resp.Status, body)
	}
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Error("the connection is still open")
	}
}
