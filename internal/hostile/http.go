package hostile

import (
	"io"
	"net/http"
	"strings"
)

// Handler serves s over streamable HTTP in its simplest form: each POST
// carries one message, a request is answered with a JSON body, and a
// notification with 202. It keeps no session. A mode that misbehaves at
// the HTTP level wraps or replaces it.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		reply, ok := s.Handle(body)
		if !ok {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.Copy(w, strings.NewReader(reply))
	})
}
