//go:build unix

package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/internal/testing/oauthtest"
	"github.com/mcpbridge/mcpbridge/internal/testing/redistest"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/toolset/config"
)

// replicas starts n gateways over servers, each with o (a copy), closed at
// the test's end.
func replicas(t *testing.T, n int, servers []config.Server, o gateway.Options) []*gateway.Gateway {
	t.Helper()
	if o.Limits.StoreTimeout == 0 {
		// A store that answers is what these tests hold to: a loaded
		// machine's slow answer must not pass for one gone.
		o.Limits.StoreTimeout = 10 * time.Second
	}
	var gs []*gateway.Gateway
	for range n {
		o := o
		gs = append(gs, start(t, servers, &o))
	}
	return gs
}

// refused reports whether the tools/list of token at h was refused over
// its rate limit, failing the test on any other answer.
func refused(t *testing.T, h http.Handler, token string) bool {
	t.Helper()
	rec := listTools(h, token)
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	if strings.Contains(rec.Body.String(), `"tools":`) {
		return false
	}
	if !strings.Contains(rec.Body.String(), `"code":-31429`) || !strings.Contains(rec.Body.String(), "rate limit exceeded") {
		t.Fatalf("neither tools nor a rate limit: %s", rec.Body)
	}
	return true
}

// readyz is the body of g's /readyz, and its status.
func readyz(t *testing.T, g *gateway.Gateway) (map[string]any, int) {
	t.Helper()
	rec := httptest.NewRecorder()
	g.StatusHandler().ServeHTTP(rec, httptest.NewRequest("GET", "http://127.0.0.1/readyz", nil))
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("%v: %s", err, rec.Body)
	}
	return body, rec.Code
}

// storeState waits, within a bound, until g's /readyz says the store is
// want: the store is probed once a second.
func storeState(t *testing.T, g *gateway.Gateway, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		body, code := readyz(t, g)
		if body["store"] == want {
			if code != 200 {
				t.Fatalf("/readyz %d with the store %s: %v", code, want, body)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz still says %v, want the store %s", body, want)
		}
		time.Sleep(50 * time.Millisecond) // a probe's outcome has no event to wait on
	}
}

// With a shared store, a client's rate limit is one bucket across the
// replicas: of requests sent to two replicas in turn, the burst is taken
// and the rest refused; without it, each replica has a bucket of its own.
func TestARateLimitHoldsAcrossReplicas(t *testing.T) {
	r := redistest.Start(t)
	o := gateway.Options{
		RateLimit: &gateway.RateLimit{Rate: 0.001, Burst: 6},
		Clients:   map[string]gateway.Client{"alice": {Token: "tok-alice"}},
	}
	taken := func(gs []*gateway.Gateway) int {
		n := 0
		for i := range 18 {
			if !refused(t, gs[i%len(gs)].Handler(), "tok-alice") {
				n++
			}
		}
		return n
	}
	if n := taken(replicas(t, 2, nil, o)); n != 12 {
		t.Errorf("without a store: %d of 18 taken, want 12 (6 on each replica)", n)
	}
	o.Store = r.URL
	gs := replicas(t, 2, nil, o)
	if n := taken(gs); n != 6 {
		t.Errorf("with a store: %d of 18 taken, want the burst, 6", n)
	}
	body, code := readyz(t, gs[1]) // which saw both replicas when it started
	if code != 200 || body["store"] != "up" || body["replicas"] != float64(2) {
		t.Errorf("/readyz: %d %v, want ready, the store up and 2 replicas", code, body)
	}
}

// With a shared store, a client's sessions are counted across the
// replicas: its third session, on either replica, is refused.
func TestSessionsPerClientHoldAcrossReplicas(t *testing.T) {
	r := redistest.Start(t)
	a := newUpstream(t, "a")
	gs := replicas(t, 2, []config.Server{a.config(true)}, gateway.Options{
		Store:   r.URL,
		Limits:  gateway.Limits{SessionsPerClient: 2},
		Clients: map[string]gateway.Client{"alice": {Token: "tok-alice"}, "bob": {Token: "tok-bob"}},
	})
	open := func(g *gateway.Gateway, token string) error {
		url, _ := serve(t, g)
		c := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil)
		cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: oauthtest.Bearer(token)}},
			&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err == nil {
			t.Cleanup(func() { cs.Close() })
		}
		return err
	}
	for _, g := range gs {
		if err := open(g, "tok-alice"); err != nil {
			t.Fatal(err)
		}
	}
	for i, g := range gs {
		err := open(g, "tok-alice")
		if want := `2 sessions open for client "alice" across the replicas, the bound (SessionsPerClient, 2)`; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("alice's third session, on replica %d: %v, want a refusal saying %q", i, err, want)
		}
	}
	if err := open(gs[1], "tok-bob"); err != nil {
		t.Errorf("bob's first session: %v", err)
	}
}

// With a shared store, a client's calls in flight are counted across the
// replicas: while its one call allowed blocks on a replica, its call on
// another waits, and never reaches the server; once the first ends, the
// next goes through.
func TestCallsPerClientHoldAcrossReplicas(t *testing.T) {
	r := redistest.Start(t)
	a := newUpstream(t, "a")
	gs := replicas(t, 2, []config.Server{a.config(true)}, gateway.Options{
		Store:   r.URL,
		Limits:  gateway.Limits{CallsPerClient: 1},
		Clients: map[string]gateway.Client{"alice": {Token: "tok-alice"}},
	})
	session := func(g *gateway.Gateway) *mcp.ClientSession {
		url, _ := serve(t, g)
		return connect(t, url, "2026-07-28", nil, &http.Client{Transport: oauthtest.Bearer("tok-alice")})
	}
	first, second := session(gs[0]), session(gs[1])
	held := make(chan error, 1)
	go func() {
		_, err := first.CallTool(t.Context(), &mcp.CallToolParams{Name: "a_block", Arguments: map[string]any{}})
		held <- err
	}()
	<-a.blocked
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	if _, err := second.CallTool(ctx, &mcp.CallToolParams{Name: "a_block", Arguments: map[string]any{}}); err == nil {
		t.Error("a second call of alice's went through on the other replica while her one call allowed was in flight")
	}
	select {
	case <-a.blocked:
		t.Error("a second call of alice's reached the server while her one call allowed was in flight")
	default:
	}
	close(a.release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	res, err := second.CallTool(t.Context(), &mcp.CallToolParams{Name: "a_echo", Arguments: map[string]any{"text": "next"}})
	if err != nil || text(t, res) != "a: next" {
		t.Fatalf("alice's call once the first ended: %v", err)
	}
}

// A store gone leaves every replica serving: each holds its share of a
// client's limits (the figure divided by the replicas it last saw), says
// so in /readyz while staying ready, and counts in the store again once it
// is back.
func TestAStoreGoneLeavesEachReplicaItsShare(t *testing.T) {
	r := redistest.Start(t)
	gs := replicas(t, 2, nil, gateway.Options{
		Store:     r.URL,
		RateLimit: &gateway.RateLimit{Rate: 0.001, Burst: 4},
		Clients:   map[string]gateway.Client{"alice": {Token: "tok-alice"}},
	})
	g := gs[1] // which saw both replicas when it started
	r.Stop()
	for i := range 2 {
		if refused(t, g.Handler(), "tok-alice") {
			t.Fatalf("request %d within the replica's share (2 of 4) refused", i+1)
		}
	}
	if !refused(t, g.Handler(), "tok-alice") {
		t.Error("the third request taken: past the replica's share of the burst, 2 of 4")
	}
	storeState(t, g, "unreachable")
	r.Restart()
	storeState(t, g, "up")
	n := 0
	for i := range 8 {
		if !refused(t, gs[i%2].Handler(), "tok-alice") {
			n++
		}
	}
	if n != 4 {
		t.Errorf("the store back: %d of 8 taken, want the burst, 4, across the replicas", n)
	}
}

// A store that stops answering holds no request past its timeout: the
// request is served on the replica's share, and /readyz says the store is
// unreachable.
func TestASlowStoreHoldsNoRequest(t *testing.T) {
	r := redistest.Start(t)
	a := newUpstream(t, "a")
	g := start(t, []config.Server{a.config(true)}, &gateway.Options{
		Store:     r.URL,
		RateLimit: &gateway.RateLimit{Rate: 100},
		Limits:    gateway.Limits{SessionsPerClient: 10, CallsPerClient: 10, StoreTimeout: 200 * time.Millisecond},
	})
	url, _ := serve(t, g)
	r.Freeze()
	defer r.Thaw()
	// A request that waited for the store would fail here.
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for _, v := range versions {
		c := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: v})
		if err != nil {
			t.Fatalf("%s: connecting while the store is paused: %v", v, err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "a_echo", Arguments: map[string]any{"text": v}})
		if err != nil || text(t, res) != "a: "+v {
			t.Fatalf("%s: a call while the store is paused: %v", v, err)
		}
		cs.Close()
	}
	if body, code := readyz(t, g); code != 200 || body["store"] != "unreachable" {
		t.Errorf("/readyz while the store does not answer: %d %v", code, body)
	}
}

// Start refuses a store it cannot name, and a store timeout lifted.
func TestStartRefusesABadStore(t *testing.T) {
	for _, c := range []struct {
		o    gateway.Options
		want string
	}{
		{gateway.Options{Store: "http://user:secret@host/"}, "gateway: Store http://…@host: want redis://"},
		{gateway.Options{Store: "redis://127.0.0.1:1", Limits: gateway.Limits{StoreTimeout: -1}}, "Limits.StoreTimeout -1ns: negative"},
	} {
		_, err := gateway.Start(t.Context(), &config.Config{}, &c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "secret") {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
}

// Replicas that share a store and no task key share the key kept there,
// and a replica that cannot read it does not start, saying how to start
// without the store.
func TestReplicasShareTheirTaskKeyThroughTheStore(t *testing.T) {
	r := redistest.Start(t)
	gs := replicas(t, 2, nil, gateway.Options{Store: r.URL})
	c := r.Client()
	defer c.Close()
	key, err := c.Get(t.Context(), "mcpbridge:taskkey").Bytes()
	if err != nil || len(key) != gateway.TaskKeySize {
		t.Fatalf("the key in the store: %d bytes, %v", len(key), err)
	}
	if gateway.TaskKeyOf(gs[0]) != string(key) || gateway.TaskKeyOf(gs[1]) != string(key) {
		t.Error("a replica signs with a key other than the store's")
	}
	r.Stop()
	_, err = gateway.Start(t.Context(), &config.Config{}, &gateway.Options{Store: r.URL})
	if want := "reading the replicas' task key"; err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "--task-key-file") {
		t.Errorf("starting with the store gone: %v, want %q", err, want)
	}
	g := start(t, nil, &gateway.Options{Store: r.URL, TaskKeys: [][]byte{key}})
	if body, code := readyz(t, g); code != 200 || body["store"] != "unreachable" {
		t.Errorf("a replica with its own key, the store gone: %d %v", code, body)
	}
}

// The store's state and its operations are in the gateway's metrics: up
// while it answers, down once an operation failed, each operation's time
// and each failure by op.
func TestTheStoresStateIsInTheMetrics(t *testing.T) {
	r := redistest.Start(t)
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())
	g := start(t, nil, &gateway.Options{
		Store:     r.URL,
		RateLimit: &gateway.RateLimit{Rate: 100},
		Telemetry: mcptool.Telemetry{Meter: mp},
	})
	metrics := func() map[string]int64 {
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(context.Background(), &rm); err != nil {
			t.Fatal(err)
		}
		out := map[string]int64{}
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				switch d := m.Data.(type) {
				case metricdata.Gauge[int64]:
					for _, p := range d.DataPoints {
						out[m.Name] = p.Value
					}
				case metricdata.Sum[int64]:
					for _, p := range d.DataPoints {
						out[m.Name] += p.Value
					}
				case metricdata.Histogram[float64]:
					for _, p := range d.DataPoints {
						out[m.Name] += int64(p.Count)
					}
				}
			}
		}
		return out
	}
	refused(t, g.Handler(), "")
	if m := metrics(); m["mcpbridge.gateway.store.up"] != 1 || m["mcpbridge.gateway.store.duration"] == 0 || m["mcpbridge.gateway.store.errors"] != 0 {
		t.Errorf("the store up: %v", m)
	}
	r.Stop()
	refused(t, g.Handler(), "")
	if m := metrics(); m["mcpbridge.gateway.store.up"] != 0 || m["mcpbridge.gateway.store.errors"] == 0 || m["mcpbridge.gateway.store.changes"] != 1 {
		t.Errorf("the store gone: %v", m)
	}
}
