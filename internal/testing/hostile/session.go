package hostile

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// SessionNotFound is the body the Python SDK's streamable HTTP transport
// answers a request of a session that is over with, status 404: a JSON-RPC
// error whose id is none of the request's ("server-error"), as the
// session, not the request, is what failed. (The TypeScript SDK writes a
// null id, which go-sdk does not read as an answer, and so takes the 404
// as the session's end.)
const SessionNotFound = `{"jsonrpc":"2.0","id":"server-error","error":{"code":-32600,"message":"Not Found: Session has been terminated"}}`

// forgetsSession serves streamable HTTP with sessions as the Python SDK
// does, and forgets each session once it has answered a tools/call, as a
// server that restarted: initialize opens a session (Mcp-Session-Id), every
// later request must carry the session's id, and one that carries an id the
// server does not know is answered 404 with SessionNotFound. DELETE ends a
// session. The answers are the mode's own or the well-behaved ones.
func forgetsSession(s *Server) http.Handler {
	var (
		mu       sync.Mutex
		sessions = map[string]bool{}
		made     int
	)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("Mcp-Session-Id")
		mu.Lock()
		known := sessions[id]
		mu.Unlock()
		if r.Method == http.MethodGet {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if id != "" && !known {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, SessionNotFound)
			return
		}
		if r.Method == http.MethodDelete {
			mu.Lock()
			delete(sessions, id)
			mu.Unlock()
			return
		}
		msg, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if id == "" && strings.Contains(string(msg), `"initialize"`) {
			mu.Lock()
			made++
			id = fmt.Sprintf("session-%d", made)
			sessions[id] = true
			mu.Unlock()
			w.Header().Set("Mcp-Session-Id", id)
		}
		reply, ok := s.Handle(msg)
		if strings.Contains(string(msg), `"tools/call"`) {
			mu.Lock()
			delete(sessions, id)
			mu.Unlock()
		}
		if !ok {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, reply)
	})
}

// Peek is a read-only tool, which a client may send again when its
// connection was lost during the call. It answers "peeked".
var Peek = map[string]any{
	"name":        "peek",
	"inputSchema": map[string]any{"type": "object"},
	"annotations": map[string]any{"readOnlyHint": true},
}

// peek lists echo and Peek, and answers a call of peek.
func peek(_ *Server, req *Request) (string, bool) {
	switch req.Method {
	case "tools/list":
		return Result(req.ID, map[string]any{"tools": []any{Echo, Peek}}), true
	case "tools/call":
		if name, _ := CallParams(req); name == "peek" {
			return Text(req.ID, "peeked"), true
		}
	}
	return "", false
}
