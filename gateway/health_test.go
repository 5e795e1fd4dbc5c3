package gateway_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/mcpbridge/mcpbridge/gateway"
)

// probe GETs path of srv with the Origin and Host given (none if empty),
// and returns the status and the body.
func probe(t *testing.T, srv *httptest.Server, path, origin, host string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// The endpoint's probes say how the gateway is and nothing of its servers,
// to anyone the endpoint's Origin and Host checks let in, without a token
// (a kubelet has none): a page rebound to this machine (Host evil.example on
// a loopback connection) or of a foreign origin is refused, as at /mcp.
// Before, both answered every request with each server's name and state.
// The servers' names and states are the operator's: [Gateway.StatusHandler]
// serves them, for an address of the operator's alone.
func TestProbesAreBareAndCheckedTheServersStatesTheOperators(t *testing.T) {
	a := newUpstream(t, "secret-payroll")
	g := start(t, []config.Server{a.config(true)}, &gateway.Options{Clients: map[string]gateway.Client{"ci": {Token: "t0ken"}}})
	_, srv := serve(t, g)
	for _, path := range []string{"/healthz", "/readyz"} {
		code, body := probe(t, srv, path, "", "")
		if code != 200 || strings.Contains(body, "secret-payroll") {
			t.Errorf("%s: %d %s, want 200 without the servers' names", path, code, body)
		}
		if code, body := probe(t, srv, path, "", "evil.example"); code != http.StatusForbidden {
			t.Errorf("%s with Host evil.example: %d %s, want 403", path, code, body)
		}
		if code, body := probe(t, srv, path, "https://evil.example", ""); code != http.StatusForbidden {
			t.Errorf("%s from https://evil.example: %d %s, want 403", path, code, body)
		}
	}
	status := httptest.NewServer(g.StatusHandler())
	t.Cleanup(status.Close)
	if code, body := probe(t, status, "/readyz", "", ""); code != 200 || !strings.Contains(body, `"name":"secret-payroll","state":"ready","required":true,"tools":`) {
		t.Errorf("the status address's /readyz: %d %s, want the servers' states", code, body)
	}
	if code, body := probe(t, status, "/readyz", "", "evil.example"); code != http.StatusForbidden {
		t.Errorf("the status address's /readyz with Host evil.example: %d %s, want 403", code, body)
	}
}
