package gateway

import "net/http"

// FastOnly is g's MCP endpoint for POSTs of the 2026-07-28 revision served
// by the fast path alone (fast.go), behind the checks every POST passes
// ([Gateway.post]): a request the fast path leaves to go-sdk is answered
// 501, so that a test sees which path answered, where both answer alike by
// design.
func FastOnly(g *Gateway) http.Handler {
	left := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "left to go-sdk by the fast path", http.StatusNotImplemented)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.post(w, r, true, left, left)
	})
}

// The names of the tools of progressive disclosure.
const (
	FindToolsName = findToolsName
	CallToolName  = callToolName
)

// OnServerWait has f told of each request that waits for one of server's
// slots (Limits.ServerCalls).
func OnServerWait(g *Gateway, server string, f func()) {
	s := g.share[server]
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onWait = f
}

// TaskKeyOf is the key with which g signs new task ids.
func TaskKeyOf(g *Gateway) string { return string(g.tasks.keys[0]) }
