package hostile

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// Verbatim answers every tools/call of the tool named tool (by its Mcp-Name
// header: protocol 2026-07-28 over streamable HTTP) with result, written as
// it is in one event, and hands every other request to next: a server
// whose result go-sdk's decoding and encoding would not give back (keys out
// of order, members go-sdk does not know), for a test that a relay passes
// it on byte for byte.
func Verbatim(next http.Handler, tool, result string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Name") != tool || r.Header.Get("Mcp-Method") != "tools/call" {
			next.ServeHTTP(w, r)
			return
		}
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", req.ID, result)
	})
}
