package mcpclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
)

// states records a provider's state changes.
type states struct {
	mu  sync.Mutex
	all []mcpclient.State
}

func (s *states) record(st mcpclient.State, _ error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.all = append(s.all, st)
}

func (s *states) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	for _, st := range s.all {
		names = append(names, st.String())
	}
	return strings.Join(names, ",")
}

var fastReconnect = mcpclient.WithReconnect(mcpclient.Reconnect{MinDelay: 10 * time.Millisecond, MaxDelay: 50 * time.Millisecond})

func TestStates(t *testing.T) {
	var seen states
	p := raw(t, "", mcpclient.WithStateChange(seen.record))
	if st, _ := p.State(); st != mcpclient.StateIdle {
		t.Fatalf("before Connect: %v", st)
	}
	connect(t, p)
	p.Close()
	if got := seen.String(); got != "connecting,ready,closed" {
		t.Fatalf("states %s", got)
	}
	bad := mcpclient.FromCommand(filepath.Join(t.TempDir(), "no-such-server"), nil)
	err := bad.Connect(context.Background())
	if st, why := bad.State(); st != mcpclient.StateFailed || why == nil || err == nil {
		t.Fatalf("a server that cannot start: %v, %v", st, why)
	}
}

// Killing the real subprocess mid-call: the call that was in flight is not
// resent (its outcome is unknown), the server is started again and its
// tools listed again, and later calls work.
func TestReconnectAfterServerDies(t *testing.T) {
	var seen states
	p := raw(t, "", fastReconnect, mcpclient.WithStateChange(seen.record))
	connect(t, p)
	ctx := context.Background()
	_, err := callText(ctx, p, "exit", nil)
	var te *mcpclient.TransportError
	if !errors.As(err, &te) || !te.OutcomeUnknown() {
		t.Fatalf("the interrupted call: %v; want OutcomeUnknown", err)
	}
	proctest.Eventually(t, "the provider to reconnect", func() bool {
		return seen.String() == "connecting,ready,reconnecting,ready"
	})
	if got, err := callText(ctx, p, "echo", map[string]any{"text": "back"}); err != nil || got != "back" {
		t.Fatalf("after reconnecting: %q, %v", got, err)
	}
	if got := seen.String(); got != "connecting,ready,reconnecting,ready" {
		t.Fatalf("states %s", got)
	}
}

// A server that cannot be started again is given up after the attempts
// allowed, and the error counts them in words.
func TestReconnectGivesUp(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gone")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := raw(t, "", mcpclient.WithDir(dir), mcpclient.WithReconnect(mcpclient.Reconnect{MaxAttempts: 1, MinDelay: time.Millisecond}))
	connect(t, p)
	if err := os.Remove(dir); err != nil { // the next start cannot chdir
		t.Fatal(err)
	}
	callText(context.Background(), p, "exit", nil)
	proctest.Eventually(t, "the provider to give up", func() bool {
		st, _ := p.State()
		return st == mcpclient.StateFailed
	})
	if _, why := p.State(); !strings.Contains(fmt.Sprint(why), "gave up after 1 attempt to reconnect") {
		t.Fatalf("state error %v", why)
	}
}

// A read-only tool interrupted by the server's death is sent again on the
// new connection.
func TestReconnectResendsIdempotentCall(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "died-once")
	p := raw(t, "", fastReconnect, mcpclient.WithEnv(map[string]string{hostile.MarkerEnv: marker}))
	connect(t, p)
	got, err := callText(context.Background(), p, "flaky", nil)
	if err != nil || got != "answered on the second try" {
		t.Fatalf("got %q, %v; want the answer of the restarted server", got, err)
	}
}

// A server in this process whose session ends is connected to again, over
// a new in-memory pair.
func TestFromServerReconnects(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		server := demo.New()
		var seen states
		p, _ := inProcess(t, server, mcpclient.WithReconnect(mcpclient.Reconnect{}), mcpclient.WithStateChange(seen.record))
		// Settled first: go-sdk v1.8.0's ServerSession.Close cancels the
		// subscriptions/listen handlers it knows of, and hangs on one whose
		// request arrives as it closes (the client opens it on connecting).
		synctest.Wait()
		for s := range server.Sessions() {
			s.Close()
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if got := seen.String(); got != "connecting,ready,reconnecting,ready" {
			t.Fatalf("states %s", got)
		}
		if got := call(t, p.Handler(), "note_stats", `{}`).Text(); got != "notes: 0" {
			t.Fatalf("after reconnecting: %q", got)
		}
	})
}

// While the connection is being rebuilt, calls fail at once with an error
// that says so; Close stops the rebuilding.
func TestCallsWhileReconnecting(t *testing.T) {
	p := raw(t, "", mcpclient.WithReconnect(mcpclient.Reconnect{MinDelay: time.Hour}))
	connect(t, p)
	callText(context.Background(), p, "exit", nil)
	proctest.Eventually(t, "the provider to start reconnecting", func() bool {
		st, _ := p.State()
		return st == mcpclient.StateReconnecting
	})
	_, err := callText(context.Background(), p, "echo", nil)
	var te *mcpclient.TransportError
	if !errors.As(err, &te) || !te.Retryable() || !strings.Contains(err.Error(), "being rebuilt") || !strings.Contains(err.Error(), "exit status 4") {
		t.Fatalf("got %v; want a retryable error saying the connection is being rebuilt and why", err)
	}
	p.Close() // returns although the next attempt is an hour away
}

// An HTTP session the server forgot (404) is rebuilt, and a read-only call
// caught by it is sent again.
func TestReconnectExpiredHTTPSession(t *testing.T) {
	var expired sync.Map // session IDs the server no longer knows
	var forget atomic.Bool
	inner := demo.HTTPHandler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("Mcp-Session-Id")
		if id != "" && forget.Load() {
			expired.Store(id, true)
			forget.Store(false)
		}
		if _, gone := expired.Load(id); gone && id != "" {
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		// End the sessions the client was refused, as a server that
		// expires them would.
		expired.Range(func(id, _ any) bool {
			req := httptest.NewRequest(http.MethodDelete, "/", nil)
			req.Header.Set("Mcp-Session-Id", id.(string))
			inner.ServeHTTP(httptest.NewRecorder(), req)
			return true
		})
	})
	var seen states
	p := connectURL(t, srv.URL, fastReconnect, mcpclient.WithStateChange(seen.record))
	ctx := context.Background()
	call(t, p.Handler(), "add_note", `{"title":"kept","body":"on the server"}`)
	forget.Store(true)
	res := call(t, p.Handler(), "list_notes", ``) // read-only: resent on the new session
	if !strings.Contains(res.Text(), "#1 kept") {
		t.Fatalf("after the session expired: %q", res.Text())
	}
	if !strings.Contains(seen.String(), "reconnecting,ready") {
		t.Fatalf("states %s", seen.String())
	}
	if _, err := callText(ctx, p, "list_notes", nil); err != nil {
		t.Fatal(err)
	}
}

// A call's timeout restarts at each progress report, and a call that
// passes it is cancelled on the wire. In a synctest bubble, time moves only
// when every goroutine waits, so the bounds are exact.
func TestCallTimeoutExtendedByProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, c := inProcess(t, demo.New(), mcpclient.WithCallTimeout(time.Second))
		h := p.Handler()
		// Four steps of 900 ms: longer than the bound in all, but each step
		// reports progress and restarts it.
		if got := call(t, h, "slow_count", `{"to": 4, "delay_ms": 900}`).Text(); got != "counted to 4" {
			t.Fatalf("slow_count: %q", got)
		}
		// One step longer than the bound: cancelled, on the wire too.
		_, err := h.Call(context.Background(), "slow_count", json.RawMessage(`{"to": 2, "delay_ms": 1001}`))
		var te *mcpclient.TransportError
		if !errors.As(err, &te) || !te.Timeout() || te.Server != "notes" || !strings.Contains(err.Error(), `tools/call "slow_count"`) {
			t.Fatalf("got %v; want a timeout naming server and tool", err)
		}
		synctest.Wait()
		if n := c.get("notifications/cancelled"); n != 1 {
			t.Fatalf("%d cancellations at the server; want 1", n)
		}
	})
}

func TestListChangedRefreshes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		server := demo.New()
		changed := 0
		p, c := inProcess(t, server, mcpclient.WithToolsChanged(func() { changed++ }))
		before := len(p.Tools())
		// Two changes in a burst: one refresh.
		for _, name := range []string{"new_tool_a", "new_tool_b"} {
			textTool(server, name, func(*mcp.CallToolRequest) string { return "" })
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if changed != 1 || len(p.Tools()) != before+2 {
			t.Fatalf("%d changes reported, %d tools; want 1, and both new tools", changed, len(p.Tools()))
		}
		if n := c.get("tools/list"); n != 2 {
			t.Fatalf("%d listings for one burst; want 2 in all", n)
		}
	})
}

func TestRefreshIfStale(t *testing.T) {
	ttl := 0
	var mu sync.Mutex
	server := mcp.NewServer(&mcp.Implementation{Name: "ttl", Version: "1"}, &mcp.ServerOptions{
		SetCacheable: func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) {
			mu.Lock()
			defer mu.Unlock()
			c.TTLMs = ttl
		},
	})
	textTool(server, "t", func(*mcp.CallToolRequest) string { return "" })
	// A ttl of 0 is no hint: the listing stays.
	p, c := inProcess(t, server)
	if err := p.RefreshIfStale(context.Background()); err != nil || c.get("tools/list") != 1 {
		t.Fatalf("ttl 0 re-listed: %v, %d listings", err, c.get("tools/list"))
	}
	mu.Lock()
	ttl = 1000
	mu.Unlock()
	synctest.Test(t, func(t *testing.T) {
		p, c := inProcess(t, server)
		if p.ProtocolVersion() < "2026-07-28" {
			t.Fatalf("negotiated %s; ttlMs needs protocol 2026-07-28", p.ProtocolVersion())
		}
		for _, wait := range []time.Duration{999 * time.Millisecond, time.Millisecond} {
			time.Sleep(wait)
			if err := p.RefreshIfStale(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		if n := c.get("tools/list"); n != 2 {
			t.Fatalf("%d listings; want a second one once the second passed", n)
		}
	})
}

// An error on a live connection (here an HTTP status) is a transport error
// with a known outcome, and the connection stays up. (That it does not wait
// for the session to end is TestConnectionGone's.)
func TestCallErrorOnLiveConnection(t *testing.T) {
	inner := demo.HTTPHandler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			if strings.Contains(string(body), `"list_notes"`) {
				http.Error(w, "overloaded", http.StatusInternalServerError)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	p := connectURL(t, srv.URL, mcpclient.WithReconnect(mcpclient.Reconnect{MinDelay: time.Hour}))
	_, err := callText(context.Background(), p, "list_notes", nil)
	var te *mcpclient.TransportError
	if !errors.As(err, &te) || te.OutcomeUnknown() {
		t.Fatalf("got %v; want a TransportError with a known outcome", err)
	}
	if st, _ := p.State(); st != mcpclient.StateReady {
		t.Fatalf("the connection did not survive the failed request: %v", st)
	}
}

// Refresh with no bound on requests or connecting lists again; a negative
// bound means none, not an expired one.
func TestRefreshWithoutBounds(t *testing.T) {
	p, c := inProcess(t, demo.New(), mcpclient.WithRequestTimeout(-1), mcpclient.WithConnectTimeout(-1))
	if err := p.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := c.get("tools/list"); n != 2 {
		t.Fatalf("%d listings; want 2", n)
	}
}

// Without a call timeout, progress would restart nothing, so none is asked
// for; with one, every call asks. Zero is the default bound, not none.
func TestProgressTokenOnlyWithCallTimeout(t *testing.T) {
	for _, tc := range []struct {
		timeout time.Duration
		want    string
	}{{-1, "no token"}, {0, "token"}, {time.Minute, "token"}} {
		server := newServer("progress")
		textTool(server, "token", func(req *mcp.CallToolRequest) string {
			if req.Params.GetProgressToken() != nil {
				return "token"
			}
			return "no token"
		})
		p, _ := inProcess(t, server, mcpclient.WithCallTimeout(tc.timeout))
		if got, err := callText(context.Background(), p, "token", nil); err != nil || got != tc.want {
			t.Errorf("call timeout %v: %q, %v; want %q", tc.timeout, got, err, tc.want)
		}
	}
}

// Connect is bounded whatever the transport: a peer of the caller's that
// never reads holds the handshake's write, which the connect timeout
// abandons by closing the connection.
func TestConnectToAPeerThatNeverReads(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client, _ := mcp.NewInMemoryTransports() // the server's end is never read
		p := mcpclient.FromTransport("mute", client, mcpclient.WithConnectTimeout(time.Second))
		defer p.Close()
		err := p.Connect(t.Context())
		if err == nil || !strings.Contains(err.Error(), "no answer within 1s") {
			t.Fatalf("Connect: %v, want no answer within 1s", err)
		}
	})
}
