package main_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Arguments that do not match the tool's schema are refused before
// anything is sent: status 2 and one line saying the tool did not run,
// not that it failed.
// --raw changes only what is printed: the call is checked as any other.
func TestCallRefusedBeforeSending(t *testing.T) {
	for _, output := range [][]string{nil, {"--raw"}, {"--json"}} {
		r := mcpbridge(t, t.TempDir(), "", nil, append([]string{"call", "add_note"}, output...)...)
		expect(t, r, 2, `mcpbridge call: tool "add_note" did not run: refused before sending: missing required argument "title"`)
		oneLine(t, r)
		if strings.Contains(r.err, "failed") || r.out != "" {
			t.Errorf("%v: stdout:\n%s\nstderr:\n%s", output, r.out, r.err)
		}
	}
}

// A model that cannot be reached, or whose API answers with an error, is a
// connection error: status 3, as the help says.
func TestChatModelUnreachable(t *testing.T) {
	dir := t.TempDir()
	clean := []string{"OPENAI_API_KEY=test", "ANTHROPIC_API_KEY="}
	gone := httptest.NewServer(http.NotFoundHandler())
	url := gone.URL
	gone.Close() // nothing listens there now
	r := mcpbridge(t, dir, "", append(clean, "OPENAI_BASE_URL="+url+"/v1"), "chat", "-p", "hi", "--model", "m")
	expect(t, r, 3, "connection refused")

	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"message":"no such key","type":"invalid_request_error","code":"invalid_api_key"}}`)
	}))
	t.Cleanup(refusing.Close)
	r = mcpbridge(t, dir, "", append(clean, "OPENAI_BASE_URL="+refusing.URL+"/v1"), "chat", "-p", "hi", "--model", "m")
	expect(t, r, 3, "HTTP 401", "no such key")
}
