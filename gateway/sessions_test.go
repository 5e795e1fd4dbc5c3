package gateway_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/internal/testing/oauthtest"
	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
)

// sessionRequest is a POST of body to a gateway's endpoint at url, in the
// session id ("" to open one), as a 2025-11-25 client sends it.
func sessionRequest(ctx context.Context, url, id, body string) *http.Request {
	r := httptest.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if !strings.HasPrefix(url, "http://127.0.0.1/") {
		r.RequestURI = "" // for a client, not a handler
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if id != "" {
		r.Header.Set("Mcp-Session-Id", id)
		r.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	return r
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// openSession opens a session of h in memory and returns its id, or "" with
// the answer when it is refused.
func openSession(t *testing.T, h http.Handler) (string, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, sessionRequest(t.Context(), "http://127.0.0.1/mcp", "", initialize))
	id := rec.Header().Get("Mcp-Session-Id")
	if rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), `"error"`) {
		return "", rec.Body.String()
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, sessionRequest(t.Context(), "http://127.0.0.1/mcp", id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	return id, ""
}

// ping sends a ping in session id and returns the HTTP status.
func ping(t *testing.T, h http.Handler, id string) int {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, sessionRequest(t.Context(), "http://127.0.0.1/mcp", id, `{"jsonrpc":"2.0","id":2,"method":"ping"}`))
	return rec.Code
}

// A session no request reaches for SessionIdle is closed, and no longer
// counted: a client that opened sessions and walked away holds none for
// long. Before, go-sdk's SessionTimeout was left 0, which never closes a
// session: 33 800 sessions were opened in 15 s, 554 MiB, and each still
// answered.
func TestIdleSessionsExpire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, err := gateway.Start(t.Context(), &config.Config{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		h := g.Handler()
		idle := gateway.Limits{}.Resolved().SessionIdle
		kept, _ := openSession(t, h)
		left, _ := openSession(t, h)
		if kept == "" || left == "" {
			t.Fatal("no session opened")
		}
		time.Sleep(idle - time.Second)
		if code := ping(t, h, kept); code != http.StatusOK {
			t.Fatalf("a ping before the session expired: %d", code)
		}
		time.Sleep(2 * time.Second) // left is past its idle time; kept is not
		synctest.Wait()
		if code := ping(t, h, left); code != http.StatusNotFound {
			t.Errorf("a session idle for %v answered %d, want 404 (expired)", idle+time.Second, code)
		}
		if code := ping(t, h, kept); code != http.StatusOK {
			t.Errorf("a session pinged %v ago answered %d", 2*time.Second, code)
		}
		time.Sleep(idle + time.Second)
		synctest.Wait()
		if code := ping(t, h, kept); code != http.StatusNotFound {
			t.Errorf("a session idle for %v answered %d, want 404 (expired)", idle+time.Second, code)
		}
	})
}

// Each client may hold SessionsPerClient sessions, and all of them
// together Sessions: an initialize past either is refused, naming the
// bound, and a session closed makes room. A session that expires makes
// room too (in a bubble whose clock the test moves).
func TestSessionsAreCountedPerClientAndInAll(t *testing.T) {
	a := newUpstream(t, "a")
	g := start(t, []config.Server{a.config(true)}, &gateway.Options{
		Limits: gateway.Limits{Sessions: 3, SessionsPerClient: 2},
		Clients: map[string]gateway.Client{
			"alice": {Token: "tok-alice"},
			"bob":   {Token: "tok-bob"},
		},
	})
	url, _ := serve(t, g)
	var sessions []*mcp.ClientSession // closed at the end, each once
	defer func() {
		for _, cs := range sessions {
			if cs != nil {
				cs.Close()
			}
		}
	}()
	open := func(token string) error {
		c := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil)
		cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: oauthtest.Bearer(token)}},
			&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err == nil {
			sessions = append(sessions, cs)
		}
		return err
	}
	for range 2 {
		if err := open("tok-alice"); err != nil {
			t.Fatal(err)
		}
	}
	err := open("tok-alice")
	if want := `2 sessions open for client "alice", the bound (SessionsPerClient, 2)`; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("alice's third session: %v, want a refusal saying %q", err, want)
	}
	if err := open("tok-bob"); err != nil {
		t.Fatalf("bob's first session: %v", err)
	}
	err = open("tok-bob")
	if want := `3 sessions open on the gateway, the bound (Sessions, 3)`; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("a fourth session: %v, want a refusal saying %q", err, want)
	}
	if _, err := sessions[0].CallTool(t.Context(), &mcp.CallToolParams{Name: "a_echo", Arguments: map[string]any{"text": "x"}}); err != nil {
		t.Fatalf("a session open calls: %v", err)
	}
	sessions[0].Close()
	sessions[0] = nil
	// The session's end is learnt as go-sdk closes it, after its DELETE
	// is answered.
	proctest.Eventually(t, "the session closed to make room", func() bool { return open("tok-bob") == nil })
}

// When a session ends (its client's DELETE) or its client goes away from
// the POST that carries a call, the call is cancelled on the server, as a
// stateless client's is when it goes away. Before, go-sdk's DELETE waited
// for the calls in flight, which ran on, and a client's going away left
// them running.
func TestASessionsEndCancelsItsCalls(t *testing.T) {
	a := newUpstream(t, "a")
	url, _ := serve(t, start(t, []config.Server{a.config(true)}, nil))
	var once sync.Once
	release := func() { once.Do(func() { close(a.release) }) } // what a failure left blocked
	t.Cleanup(release)
	send := func(ctx context.Context, id, body string) *http.Response {
		resp, err := http.DefaultClient.Do(sessionRequest(ctx, url, id, body))
		if err != nil {
			return nil
		}
		return resp
	}
	open := func() string {
		resp := send(t.Context(), "", initialize)
		resp.Body.Close()
		id := resp.Header.Get("Mcp-Session-Id")
		send(t.Context(), id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()
		return id
	}
	block := `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"a_block","arguments":{}}}`
	cancelled := func(what string) {
		t.Helper()
		select {
		case err := <-a.ended:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%s: the call ended with %v, want it cancelled", what, err)
			}
		case <-time.After(proctest.Bound):
			t.Errorf("%s: the call still runs on the server after %v", what, proctest.Bound)
			release()
		}
	}

	t.Run("DELETE", func(t *testing.T) {
		id := open()
		go func() {
			if resp := send(t.Context(), id, fmt.Sprintf(block, 2)); resp != nil {
				resp.Body.Close()
			}
		}()
		<-a.blocked
		deleted := make(chan int, 1)
		go func() {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodDelete, url, nil)
			req.Header.Set("Mcp-Session-Id", id)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				deleted <- 0
				return
			}
			resp.Body.Close()
			deleted <- resp.StatusCode
		}()
		cancelled("the session's DELETE")
		if code := <-deleted; code != http.StatusNoContent {
			t.Errorf("DELETE: %d", code)
		}
	})

	t.Run("client gone", func(t *testing.T) {
		id := open()
		ctx, hangUp := context.WithCancel(t.Context())
		for i := range 3 {
			go func() {
				if resp := send(ctx, id, fmt.Sprintf(block, 10+i)); resp != nil {
					resp.Body.Close()
				}
			}()
		}
		for range 3 {
			<-a.blocked
		}
		hangUp()
		for i := range 3 {
			cancelled(fmt.Sprintf("call %d of 3", i+1))
		}
		resp := send(t.Context(), id, `{"jsonrpc":"2.0","id":20,"method":"ping"}`)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("a ping of the session after its client went away from its calls: %s", resp.Status)
		}
	})
}
