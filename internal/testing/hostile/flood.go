package hostile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// The flood of the log-flood mode: FloodCount messages of FloodSize bytes.
const (
	FloodCount = 40000
	FloodSize  = 4 << 10
)

// logFlood declares logging, and when it is asked for its log at debug
// level (logging/setLevel) it floods it: FloodCount messages of FloodSize
// bytes at level error, as fast as the pipe takes them, so that a client
// that passes them on must keep up or bound what it holds. Then it pings
// its client, and answers the setLevel once the ping is answered: a client
// handles what a server sends in order, so the answer says that every
// message was handled.
func logFlood(s *Server, r io.Reader, w io.Writer) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var flooding *Request // the setLevel whose ping is unanswered
	line := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","logger":"flood","data":%q}}`,
		strings.Repeat("x", FloodSize))
	for sc.Scan() {
		var req Request
		json.Unmarshal(sc.Bytes(), &req)
		var level struct {
			Level string `json:"level"`
		}
		json.Unmarshal(req.Params, &level)
		switch {
		case flooding != nil && req.Method == "" && string(req.ID) == `"flooded"`:
			s.write(w, Result(flooding.ID, map[string]any{}))
			flooding = nil
		case req.Method == "initialize":
			s.count(req.Method)
			res := InitializeResult("2025-11-25")
			res["capabilities"].(map[string]any)["logging"] = map[string]any{}
			s.write(w, Result(req.ID, res))
		case req.Method == "logging/setLevel" && level.Level == "debug":
			s.count(req.Method)
			for range FloodCount {
				s.write(w, line)
			}
			flooding = &req
			s.write(w, `{"jsonrpc":"2.0","id":"flooded","method":"ping"}`)
		case req.Method == "logging/setLevel":
			s.count(req.Method)
			s.write(w, Result(req.ID, map[string]any{}))
		default:
			if reply, ok := s.Handle(sc.Bytes()); ok {
				s.write(w, reply)
			}
		}
	}
	return sc.Err()
}
