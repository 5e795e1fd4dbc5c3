package sdkfix

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The tap refuses what go-sdk would report by a status's text alone, or
// by closing the connection, and passes on, whole, what go-sdk reads.
func TestHTTPTapRefuses(t *testing.T) {
	const (
		call         = `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`
		notification = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
		rpcError     = `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"no"}}`
		rpcResult    = `{"jsonrpc":"2.0","id":1,"result":{}}`
		both         = "application/json, text/event-stream"
	)
	for _, tc := range []struct {
		name             string
		sse, authorizes  bool
		method, accept   string
		session, request string
		status           int
		contentType      string
		body             string
		want             *Refusal // nil: passed on
	}{
		{name: "503 with text", method: "POST", accept: both, request: call, status: 503, contentType: "text/plain", body: "down",
			want: &Refusal{Status: 503, ContentType: "text/plain", Body: []byte("down")}},
		{name: "500 with a JSON-RPC error", method: "POST", accept: both, request: call, status: 500, contentType: "application/json", body: rpcError},
		{name: "500 with other JSON", method: "POST", accept: both, request: call, status: 500, contentType: "application/json", body: `{"message":"no"}`,
			want: &Refusal{Status: 500, ContentType: "application/json", Body: []byte(`{"message":"no"}`)}},
		{name: "401 without OAuth", method: "POST", accept: both, request: call, status: 401, want: &Refusal{Status: 401, Body: []byte{}}},
		{name: "401 with OAuth", authorizes: true, method: "POST", accept: both, request: call, status: 401},
		{name: "404 in a session", method: "POST", accept: both, session: "s1", request: call, status: 404},
		{name: "404 before a session", method: "POST", accept: both, request: call, status: 404, contentType: "text/html", body: "<html>",
			want: &Refusal{Status: 404, ContentType: "text/html"}},
		{name: "redirect", method: "POST", accept: both, request: call, status: 307},
		{name: "web page", method: "POST", accept: both, request: call, status: 200, contentType: "text/html", body: "<html>",
			want: &Refusal{Status: 200, ContentType: "text/html", Want: "application/json or text/event-stream"}},
		{name: "no Content-Type", method: "POST", accept: both, request: call, status: 200,
			want: &Refusal{Status: 200, Want: "application/json or text/event-stream", Body: []byte{}}},
		{name: "JSON not JSON-RPC", method: "POST", accept: both, request: call, status: 200, contentType: "application/json", body: `{"ok":true}`,
			want: &Refusal{Status: 200, ContentType: "application/json", NotJSONRPC: true, Body: []byte(`{"ok":true}`)}},
		{name: "a result", method: "POST", accept: both, request: call, status: 200, contentType: "application/json", body: rpcResult},
		{name: "a stream", method: "POST", accept: both, request: call, status: 200, contentType: "text/event-stream", body: "data: " + rpcResult + "\n\n"},
		{name: "a notification's web page", method: "POST", accept: both, request: notification, status: 200, contentType: "text/html", body: "<html>"},
		{name: "a notification accepted", method: "POST", accept: both, request: notification, status: 202},
		{name: "a response's plain text", method: "POST", accept: both, request: rpcResult, status: 200, contentType: "text/plain", body: "ok"},
		{name: "streamable GET 405", method: "GET", accept: "text/event-stream", status: 405},
		{name: "streamable GET web page", method: "GET", accept: "text/event-stream", status: 200, contentType: "text/html"},
		{name: "SSE GET 405", sse: true, method: "GET", accept: "text/event-stream", status: 405, want: &Refusal{Status: 405, Body: []byte{}}},
		{name: "SSE GET web page", sse: true, method: "GET", accept: "text/event-stream", status: 200, contentType: "text/html", body: "<html>",
			want: &Refusal{Status: 200, ContentType: "text/html", Want: "text/event-stream"}},
		{name: "SSE GET stream", sse: true, method: "GET", accept: "text/event-stream", status: 200, contentType: "text/event-stream"},
		{name: "SSE POST accepted", sse: true, method: "POST", request: call, status: 202, contentType: "text/plain", body: "Accepted"},
		{name: "SSE POST web page", sse: true, method: "POST", request: call, status: 200, contentType: "text/html", body: "<html>",
			want: &Refusal{Status: 200, ContentType: "text/html", Want: "202 Accepted, the answer following on the event stream"}},
		{name: "SSE POST 503", sse: true, method: "POST", request: call, status: 503, want: &Refusal{Status: 503, Body: []byte{}}},
		{name: "DELETE", method: "DELETE", session: "s1", status: 405},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := &HTTPTap{SSE: tc.sse, Authorizes: tc.authorizes, Next: roundTripper(func(r *http.Request) (*http.Response, error) {
				h := http.Header{}
				if tc.contentType != "" {
					h.Set("Content-Type", tc.contentType)
				}
				return &http.Response{StatusCode: tc.status, Header: h, Body: io.NopCloser(strings.NewReader(tc.body)), ContentLength: -1, Request: r}, nil
			})}
			req, _ := http.NewRequest(tc.method, "http://127.0.0.1:1/mcp", strings.NewReader(tc.request))
			if tc.accept != "" {
				req.Header.Set("Accept", tc.accept)
			}
			if tc.session != "" {
				req.Header.Set("Mcp-Session-Id", tc.session)
			}
			resp, err := x.RoundTrip(req)
			var ref *Refusal
			errors.As(err, &ref)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if body, _ := io.ReadAll(resp.Body); string(body) != tc.body {
					t.Fatalf("body %q; want %q, put back whole", body, tc.body)
				}
				return
			}
			if ref == nil || resp != nil {
				t.Fatalf("got %v, %v; want the refusal %+v", resp, err, tc.want)
			}
			if got, want := fmt.Sprintf("%+v", *ref), fmt.Sprintf("%+v", *tc.want); got != want {
				t.Fatalf("refusal %s; want %s", got, want)
			}
			if x.Refused(fmt.Errorf("go-sdk: %v", err)) != ref {
				t.Fatal("Refused does not find the refusal in its text")
			}
			// go-sdk may report what the refusal led to instead.
			if x.Refused(errors.New(`connection closed: calling "initialize": client is closing: EOF`)) != ref {
				t.Fatal("Refused does not find the refusal behind a closed connection")
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"":                              0,
		"2":                             2 * time.Second,
		" 120 ":                         2 * time.Minute,
		"-1":                            0,
		"soon":                          0,
		"Tue, 01 Dec 2026 05:00:30 GMT": 30 * time.Second,
		"Tue, 01 Dec 2026 04:59:00 GMT": 0,
		// A server's number is not to overflow into a wait of its choice.
		"10000000000":                   maxRetryAfter,
		"99999999999999999999":          0,
		"Fri, 01 Dec 2226 05:00:00 GMT": maxRetryAfter,
	} {
		if got := retryAfter(v, now); got != want {
			t.Errorf("Retry-After %q: %v; want %v", v, got, want)
		}
	}
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// A JSON answer that opens as a JSON-RPC message does (its "jsonrpc" member
// first, as SDKs write it) is told by its first bytes: the tap does not
// read it whole before go-sdk reads it again. It reaches go-sdk whole.
func TestHTTPTapPeeksAtJSONAnswers(t *testing.T) {
	body := " {\n \"jsonrpc\" : \"2.0\", \"id\":1, \"result\":{\"text\":\"" + strings.Repeat("x", 1<<20) + "\"}}"
	counted := &countingReader{r: strings.NewReader(body)}
	x := &HTTPTap{Next: roundTripper(func(r *http.Request) (*http.Response, error) {
		h := http.Header{"Content-Type": {"application/json"}}
		return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(counted), ContentLength: -1, Request: r}, nil
	})}
	req, _ := http.NewRequest("POST", "http://127.0.0.1:1/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`))
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := x.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if counted.n > 512 {
		t.Errorf("the tap read %d bytes of the answer before go-sdk", counted.n)
	}
	got, err := io.ReadAll(resp.Body)
	if err != nil || string(got) != body {
		t.Fatalf("go-sdk reads %d bytes (%v); want the %d of the answer", len(got), err, len(body))
	}
}
