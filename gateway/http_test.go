package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/internal/testing/oauthtest"
)

func TestBearerTokensGuardTheEndpointAndNeverReachAServer(t *testing.T) {
	a := newUpstream(t, "a")
	g := start(t, []config.Server{a.config(true)}, &gateway.Options{Clients: map[string]gateway.Client{"alice": {Token: "s3cret-alice"}}})
	url, _ := serve(t, g)
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: status %d, want 401", resp.StatusCode)
	}
	for _, v := range versions {
		cs := connect(t, url, v, nil, &http.Client{Transport: oauthtest.Bearer("s3cret-alice")})
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "a_echo", Arguments: map[string]any{"text": "x"}}); err != nil {
			t.Fatalf("%s: %v", v, err)
		}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "mallory"}, nil)
	if _, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: oauthtest.Bearer("guess")}}, nil); err == nil {
		t.Error("a wrong token connected")
	}
	if sent := a.authorizations(); len(sent) > 0 {
		t.Errorf("the server was sent Authorization %q", sent)
	}
}

func TestRefusesForeignOriginsAndHosts(t *testing.T) {
	a := newUpstream(t, "a")
	g := start(t, []config.Server{a.config(true)}, &gateway.Options{AllowedOrigins: []string{"https://app.example"}})
	url, _ := serve(t, g)
	post := func(origin, host string) int {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
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
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, c := range []struct {
		origin, host string
		forbidden    bool
	}{
		{"http://evil.example", "", true},
		{"http://localhost:6274", "", false}, // a loopback page on a loopback connection
		{"https://app.example", "", false},
		{"", "evil.example", true}, // DNS rebinding: a foreign name on a loopback connection
		{"", "", false},
	} {
		if got := post(c.origin, c.host) == http.StatusForbidden; got != c.forbidden {
			t.Errorf("origin %q host %q: forbidden %v, want %v", c.origin, c.host, got, c.forbidden)
		}
	}
}

func TestHealthAndReadiness(t *testing.T) {
	a := newUpstream(t, "a")
	g := start(t, []config.Server{a.config(true)}, nil)
	_, srv := serve(t, g)
	get := func(path string) (int, map[string]any) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		json.NewDecoder(resp.Body).Decode(&body)
		return resp.StatusCode, body
	}
	if code, _ := get("/healthz"); code != 200 {
		t.Errorf("/healthz: %d", code)
	}
	if code, body := get("/readyz"); code != 200 || body["status"] != "ready" {
		t.Errorf("/readyz: %d %v", code, body)
	}
	if err := g.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if code, body := get("/readyz"); code != 503 || body["status"] != "draining" {
		t.Errorf("/readyz while draining: %d %v", code, body)
	}
}

func TestShutdownLetsCallsInFlightFinishAndRefusesNewOnes(t *testing.T) {
	a := newUpstream(t, "a")
	g := start(t, []config.Server{a.config(true)}, nil)
	url, _ := serve(t, g)
	cs := connect(t, url, versions[0], nil, nil)
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "a_block"})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	<-a.blocked
	drained := make(chan error, 1)
	go func() { drained <- g.Shutdown(context.Background()) }()
	// Shutdown is under way once readiness says so; a new call is refused.
	for g.Ready() {
		select {
		case err := <-drained:
			t.Fatalf("Shutdown returned with a call in flight: %v", err)
		default:
		}
	}
	_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "a_echo", Arguments: map[string]any{"text": "late"}})
	if err == nil || !strings.Contains(err.Error(), "shutting down") {
		t.Errorf("a call during the drain: %v", err)
	}
	close(a.release)
	if res := <-done; res == nil || text(t, res) != "released" {
		t.Errorf("the call in flight did not finish: %v", res)
	}
	if err := <-drained; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}

func TestShutdownIsBounded(t *testing.T) {
	a := newUpstream(t, "a")
	g := start(t, []config.Server{a.config(true)}, nil)
	url, _ := serve(t, g)
	cs := connect(t, url, versions[0], nil, nil)
	go cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "a_block"})
	<-a.blocked
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := g.Shutdown(ctx); err == nil || !strings.Contains(err.Error(), "1 requests still in flight") {
		t.Errorf("Shutdown with its context done: %v", err)
	}
	close(a.release)
	<-a.ended
}

func TestReplicasServeOneStatelessClientInTurn(t *testing.T) {
	lb, hits := roundRobin(t, 2, newUpstream(t, "a").config(true), nil)
	cs := connect(t, lb, "2026-07-28", nil, nil)
	for i := range 6 {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "a_echo", Arguments: map[string]any{"text": "n"}})
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if text(t, res) != "a: n" {
			t.Errorf("call %d: %q", i, text(t, res))
		}
	}
	for i, n := range hits() {
		if n < 3 {
			t.Errorf("replica %d served %d requests: %v", i, n, hits())
		}
	}
}

// roundRobin serves the gateways of n replicas over one server, each
// started with o, behind a proxy that sends each request to the next,
// and returns the proxy's MCP endpoint and the requests each replica
// served.
func roundRobin(t *testing.T, n int, server config.Server, o *gateway.Options) (string, func() []int64) {
	t.Helper()
	var targets []*url.URL
	hits := make([]atomic.Int64, n)
	for range n {
		_, srv := serve(t, start(t, []config.Server{server}, o))
		u, _ := url.Parse(srv.URL)
		targets = append(targets, u)
	}
	var next atomic.Int64
	lb := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		i := next.Add(1) % int64(n)
		hits[i].Add(1)
		r.SetURL(targets[i])
	}})
	t.Cleanup(lb.Close)
	return lb.URL + "/mcp", func() []int64 {
		out := make([]int64, n)
		for i := range hits {
			out[i] = hits[i].Load()
		}
		return out
	}
}
