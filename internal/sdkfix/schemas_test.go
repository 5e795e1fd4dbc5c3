package sdkfix

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// Schemas finds a listing in an event stream however the stream is cut
// into reads, and passes by what came before the listing was asked for.
func TestEventStreamShowsListings(t *testing.T) {
	const listing = `{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"b":{},"a":{}}}}]}}`
	before := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n"
	stream := "event: message\r\ndata: " + listing + "\r\n\r\n"
	for _, size := range []int{1, 2, 7, 64, 4096} {
		k := NewSchemas()
		// One read never spans both parts, as the answer comes after the request.
		parts := io.MultiReader(strings.NewReader(before), strings.NewReader(stream))
		body := &eventStream{body: io.NopCloser(parts), x: &HTTPTap{Limit: 1 << 20, Logger: slog.New(slog.DiscardHandler)}, r: reader{look(k.message), k.waiting}}
		// The request is sent after the first event was read.
		buf := make([]byte, size)
		var read strings.Builder
		for {
			if read.Len() >= len(before) && len(k.pending) == 0 && k.schemas["t"].input == nil {
				k.sent(float64(7), "tools/list", nil)
			}
			n, err := body.Read(buf)
			read.Write(buf[:n])
			if err != nil {
				break
			}
		}
		if got := string(k.schemas["t"].input); got != `{"type":"object","properties":{"b":{},"a":{}}}` {
			t.Errorf("reads of %d bytes: schema %q", size, got)
		}
		if k.waiting() {
			t.Errorf("reads of %d bytes: the listing is still awaited", size)
		}
		if read.String() != before+stream {
			t.Errorf("reads of %d bytes: the stream came out as %q", size, read.String())
		}
	}
}

// A listing that is never answered stops being awaited once discovery is
// over, so the tap does not read along with every later answer.
func TestSettleForgetsUnansweredListings(t *testing.T) {
	k := NewSchemas()
	k.sent(float64(1), "tools/list", nil)
	k.Settle()
	if k.waiting() {
		t.Fatal("still waiting after settle")
	}
	var none *Schemas
	none.Settle() // a provider without a keeper
}

// A listing's first page drops the schemas of the last listing, so that a
// tool gone from the server leaves none behind; a later page adds to them.
func TestFirstPageClearsSchemas(t *testing.T) {
	k := NewSchemas()
	page := func(id float64, params, tool string) {
		k.sent(id, "tools/list", json.RawMessage(params))
		k.received(id, json.RawMessage(`{"tools":[{"name":"`+tool+`","inputSchema":{"type":"object"}}]}`))
	}
	page(1, `{}`, "gone")
	page(2, `{"cursor":"2"}`, "kept")
	if len(k.schemas) != 2 {
		t.Fatalf("after two pages of one listing: %v", k.schemas)
	}
	page(3, ``, "new")
	if _, ok := k.schemas["gone"]; ok || len(k.schemas) != 1 {
		t.Fatalf("a new listing kept the last one's schemas: %v", k.schemas)
	}
	if k.waiting() {
		t.Fatal("a listing is still awaited after every page was answered")
	}
}

// The same request ID noted twice is awaited once: the count the readers
// check without the lock must agree with the set of awaited IDs.
func TestAwaitedCount(t *testing.T) {
	k := NewSchemas()
	k.sent("a", "tools/list", nil)
	k.sent("a", "tools/list", nil)
	k.sent("b", "tools/call", nil)
	k.received("a", json.RawMessage(`{"tools":[]}`))
	if k.waiting() {
		t.Fatal("waiting after the only listing was answered")
	}
}

// Over streamable HTTP, the response to a POST answers that POST alone, so
// the schemas read only a listing's; a GET stream may carry any answer.
func TestKeeperReadsOnlyListings(t *testing.T) {
	for _, tc := range []struct {
		name, method, body, contentType string
		kept                            bool
	}{
		{"tool call, event stream", http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t"}}`, "text/event-stream", false},
		{"tool call, JSON", http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t"}}`, "application/json", false},
		{"listing, event stream", http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}`, "text/event-stream", true},
		{"listing, JSON", http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}`, "application/json", true},
		{"GET stream", http.MethodGet, ``, "text/event-stream", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next := roundTripper(func(*http.Request) (*http.Response, error) {
				return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {tc.contentType}}, Body: io.NopCloser(strings.NewReader("")), ContentLength: -1}, nil
			})
			x := &HTTPTap{Limit: -1, Schemas: NewSchemas(), Next: next}
			var body io.Reader
			if tc.body != "" {
				body = strings.NewReader(tc.body)
			}
			req, err := http.NewRequest(tc.method, "http://example.invalid/mcp", body)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := x.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			kept := false
			switch b := resp.Body.(type) {
			case *eventStream:
				kept = b.r.sink != nil
			case *jsonBody:
				kept = b.r.sink != nil
			}
			if kept != tc.kept {
				t.Fatalf("response read for the schemas: %v, want %v", kept, tc.kept)
			}
		})
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
