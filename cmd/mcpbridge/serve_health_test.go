package main_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// serve's probes say how it is and nothing of its servers, and a request
// rebound to the loopback address (Host evil.example) or from a foreign
// origin is refused: before, both probes answered it 200, /readyz with
// every server's name and state.
func TestServeProbesAreBareAndChecked(t *testing.T) {
	url, _, _ := startServe(t)
	base := strings.TrimSuffix(url, "/mcp")
	for _, path := range []string{"/healthz", "/readyz"} {
		for _, c := range []struct {
			header, value string
			status        int
		}{{"", "", 200}, {"Host", "evil.example", 403}, {"Origin", "https://evil.example", 403}} {
			req, _ := http.NewRequest("GET", base+path, nil)
			if c.header == "Host" {
				req.Host = c.value
			} else if c.header != "" {
				req.Header.Set(c.header, c.value)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.status || strings.Contains(string(body), "demo") {
				t.Errorf("%s %s %q: %s %s, want %d without the servers' names", path, c.header, c.value, resp.Status, body, c.status)
			}
		}
	}
}
