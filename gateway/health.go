package gateway

import (
	"encoding/json"
	"net/http"

	"github.com/mcpbridge/mcpbridge/mcptool"
)

// A serverHealth is one server's line in /readyz's body.
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

func (g *Gateway) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (g *Gateway) readyz(w http.ResponseWriter, _ *http.Request) {
	ready, servers := g.health()
	status, code := "ready", http.StatusOK
	switch {
	case g.drain.isDraining():
		status, code = "draining", http.StatusServiceUnavailable
	case !ready:
		status, code = "not ready", http.StatusServiceUnavailable
	}
	writeJSON(w, code, map[string]any{"status": status, "servers": servers})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	// The client reads what it reads; a broken connection is not ours to report.
	_ = json.NewEncoder(w).Encode(v)
}
