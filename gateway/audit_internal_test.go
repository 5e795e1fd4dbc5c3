package gateway

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// A request's id is the X-Request-Id it came with when that is 128
// printable ASCII bytes or fewer, else one the gateway makes; either is
// answered.
func TestRequestIDsAreBounded(t *testing.T) {
	for _, c := range []struct {
		sent string
		kept bool
	}{
		{"", false},
		{"req-1", true},
		{strings.Repeat("a", 128), true},
		{strings.Repeat("a", 129), false},
		{"two words", false},
		{"line\nbreak", false},
		{"é", false},
	} {
		r := httptest.NewRequest("POST", "/mcp", nil)
		r.Header["X-Request-Id"] = []string{c.sent}
		w := httptest.NewRecorder()
		id := requestID(w, r)
		if kept := id == c.sent; kept != c.kept || len(id) == 0 || len(id) > maxRequestID || w.Header().Get("X-Request-Id") != id || r.Header.Get("X-Request-Id") != id {
			t.Errorf("%q: id %q, answered %q", c.sent, id, w.Header().Get("X-Request-Id"))
		}
	}
}
