package gateway

import "net/http"

// FastOnly is g's MCP endpoint served by the fast path alone (fast.go):
// a request the fast path leaves to go-sdk is answered 501, so that a test
// sees which path answered, where both answer alike by design.
func FastOnly(g *Gateway) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.fast(w, r) {
			http.Error(w, "left to go-sdk by the fast path", http.StatusNotImplemented)
		}
	})
}
