package gateway

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
	"github.com/mcpbridge/mcpbridge/mcptool"
)

// A serverHealth is one server's line in the body of /readyz at
// [Gateway.StatusHandler].
type serverHealth struct {
	Name     string `json:"name"`
	State    string `json:"state"`
	Required bool   `json:"required,omitempty"`
	Tools    int    `json:"tools"`
}

// Ready reports whether the gateway is ready for requests: every required
// server is connected and the gateway is not draining.
func (g *Gateway) Ready() bool {
	ready, _ := g.health()
	return ready
}

func (g *Gateway) health() (bool, []serverHealth) {
	required := map[string]bool{}
	for _, sc := range g.cfg.Servers {
		required[sc.Name] = sc.Required
	}
	ready := !g.drain.isDraining()
	var out []serverHealth
	for _, st := range g.ts.Status() {
		out = append(out, serverHealth{Name: st.Name, State: st.State.String(), Required: required[st.Name], Tools: st.Tools})
		if required[st.Name] && st.State != mcptool.StateReady {
			ready = false
		}
	}
	return ready, out
}

// probes serves /healthz and /readyz on mux, each behind the endpoint's
// Origin and Host checks and refusing a page rebound to a loopback
// address, as go-sdk refuses it at /mcp, but without a token: a prober has
// none. Only with servers does /readyz name each server and its state.
func (g *Gateway) probes(mux *http.ServeMux, servers bool) {
	guard := func(h http.HandlerFunc) http.Handler {
		return g.checkOrigin(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if sdkfix.Rebound(r) {
				http.Error(w, fmt.Sprintf("Forbidden: host %q is not this machine's", r.Host), http.StatusForbidden)
				return
			}
			h(w, r)
		}))
	}
	mux.Handle("GET /healthz", guard(g.healthz))
	mux.Handle("GET /readyz", guard(func(w http.ResponseWriter, r *http.Request) { g.readyz(w, servers) }))
}

// StatusHandler serves /healthz and /readyz as [Gateway.Handler] does, and
// in /readyz's body each server's name, state (ready, reconnecting,
// failed...), whether it is required and its tools: for an address only the
// operator reaches (loopback, a port no load balancer exposes), never the
// endpoint's, where any client, whatever its policy hides from it, would
// learn every server.
func (g *Gateway) StatusHandler() http.Handler {
	mux := http.NewServeMux()
	g.probes(mux, true)
	return mux
}

func (g *Gateway) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (g *Gateway) readyz(w http.ResponseWriter, withServers bool) {
	ready, servers := g.health()
	status, code := "ready", http.StatusOK
	switch {
	case g.drain.isDraining():
		status, code = "draining", http.StatusServiceUnavailable
	case !ready:
		status, code = "not ready", http.StatusServiceUnavailable
	}
	body := map[string]any{"status": status}
	if st := g.store.state(); st != "" {
		// A store that does not answer leaves the replica ready: it
		// serves on its shares of the limits (store.go), and a load
		// balancer that took every replica out for it would make the
		// store everyone's outage.
		body["store"] = st
	}
	if withServers {
		body["servers"] = servers
		if g.store != nil {
			body["replicas"] = g.store.replicas.Load()
		}
	}
	writeJSON(w, code, body)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	// The client reads what it reads; a broken connection is not ours to report.
	_ = json.NewEncoder(w).Encode(v)
}
