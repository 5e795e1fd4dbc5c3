package hostile

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A Stall is a client of a streamable HTTP endpoint (a gateway's) that
// opened a stream and does not read it: the hostile client, as the modes
// are the hostile server. Its connection takes in a few kilobytes, so
// that its server's writes to it block as soon as they would on a client
// far away whose buffers filled. It is closed when the test ends.
type Stall struct {
	done chan struct{} // closed once the response's headers came, or the request failed
	resp *http.Response
	err  error
}

// stallClient is an HTTP client of one connection of its own, with a
// small receive buffer (see stall_unix.go).
func stallClient() *http.Client {
	d := &net.Dialer{Control: smallReceiveBuffer}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
}

// Serve serves h on loopback, with the send buffers of its connections
// as small as the system allows, until the test ends, and returns its URL:
// what h writes to a client that does not read stays in h after a few
// kilobytes, rather than in the system's buffers.
func Serve(t testing.TB, h http.Handler) string {
	t.Helper()
	lc := net.ListenConfig{Control: smallSendBuffer}
	l, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

// StallSession opens a session of protocol 2025-11-25 at url with the
// bearer token (none: ""), asks for the log at level, and opens the
// session's event stream, which it then never reads: everything the
// server sends the session outside a request is for that stream.
func StallSession(t testing.TB, url, token, level string) *Stall {
	t.Helper()
	c := stallClient()
	session := openSession(t, c, url, token)
	sessionPost(t, c, url, token, session, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":%q}}`, level))
	req := stallRequest(t, http.MethodGet, url, token, session, "")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	return stall(t, c, req, true)
}

// StallSessionCall opens a session of protocol 2025-11-25 at url with the
// bearer token (none: ""), sends a tools/call of name with arguments args
// in it, and never reads its answer past the headers, which it waits for.
func StallSessionCall(t testing.TB, url, token, name string, args map[string]any) *Stall {
	t.Helper()
	c := stallClient()
	session := openSession(t, c, url, token)
	a, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	req := stallRequest(t, http.MethodPost, url, token, session, fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, name, a))
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	return stall(t, c, req, true)
}

// openSession opens a session of protocol 2025-11-25 at url over c, and
// returns its id; the session ends with the test.
func openSession(t testing.TB, c *http.Client, url, token string) string {
	t.Helper()
	resp := sessionPost(t, c, url, token, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"stall","version":"1"}}}`)
	session := resp.Header.Get("Mcp-Session-Id")
	sessionPost(t, c, url, token, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	t.Cleanup(func() {
		// The session ends with the test: nothing of it outlives it.
		req := stallRequest(t, http.MethodDelete, url, token, session, "")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		if resp, err := c.Do(req); err == nil {
			resp.Body.Close()
		}
	})
	return session
}

// sessionPost sends body in the session (none: "") over c and reads the
// answer whole.
func sessionPost(t testing.TB, c *http.Client, url, token, session, body string) *http.Response {
	t.Helper()
	req := stallRequest(t, http.MethodPost, url, token, session, body)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode >= 300 {
		t.Fatalf("hostile: %s: status %d", body, resp.StatusCode)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// StallCall sends a tools/call of name with arguments args (protocol
// 2026-07-28) and a progress token, with the bearer token (none: ""), and
// never reads its answer past the headers: every report of the call's
// progress is for that answer. It returns at once: the test knows from
// its server when the call arrived.
func StallCall(t testing.TB, url, token, name string, args map[string]any) *Stall {
	t.Helper()
	a, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":%s,"_meta":{"progressToken":"stall",`+
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"stall","version":"1"}}}}`, name, a)
	req := stallRequest(t, http.MethodPost, url, token, "", body)
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", name)
	return stall(t, stallClient(), req, false)
}

func stallRequest(t testing.TB, method, url, token, session, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(context.WithoutCancel(t.Context()), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	return req
}

// stall sends req and keeps its response unread; with wait, it returns
// once the response's headers came, else at once.
func stall(t testing.TB, c *http.Client, req *http.Request, wait bool) *Stall {
	t.Helper()
	ctx, cancel := context.WithCancel(req.Context())
	s := &Stall{done: make(chan struct{})}
	go func() {
		defer close(s.done)
		s.resp, s.err = c.Do(req.WithContext(ctx))
	}()
	t.Cleanup(func() {
		cancel()
		<-s.done
		if s.resp != nil {
			s.resp.Body.Close()
		}
	})
	if wait {
		<-s.done
		switch {
		case s.err != nil:
			t.Fatal(s.err)
		case s.resp.StatusCode != http.StatusOK:
			t.Fatalf("hostile: %s %s: status %d", req.Method, req.URL, s.resp.StatusCode)
		}
	}
	return s
}

// Answered waits for the stalled answer's headers, and reports whether
// they came: the gateway answered, whatever it wrote after them.
func (s *Stall) Answered() bool {
	<-s.done
	return s.err == nil
}

// Ended reads the stalled answer to its end and counts its messages: 0 if
// it was cut before its headers.
func (s *Stall) Ended() (messages int) {
	<-s.done
	if s.err != nil {
		return 0 // cut before its answer's headers
	}
	sc := bufio.NewScanner(s.resp.Body)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data: ") {
			messages++
		}
	}
	return messages
}
