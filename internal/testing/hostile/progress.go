package hostile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// progressSteps is how many progress notifications the progress mode sends
// for a call.
const progressSteps = 3

// progress behaves well, but answers a tools/call that asks for progress
// only after progressSteps notifications of it ("step 1 of 3" and so on),
// each followed by a ping it waits the answer of. A client handles what a
// server sends in order, so the answer to a ping says that the notification
// before it was handled: the call's answer comes after every report, as a
// test can count on.
func progress(s *Server, r io.Reader, w io.Writer) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var call *Request // the call being answered
	var token json.RawMessage
	step := 0
	next := func() {
		step++
		if step > progressSteps {
			s.write(w, Text(call.ID, "done"))
			call = nil
			return
		}
		s.write(w, fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":%d,"total":%d,"message":"step %d of %d"}}`,
			token, step, progressSteps, step, progressSteps))
		s.write(w, fmt.Sprintf(`{"jsonrpc":"2.0","id":"progress-%d","method":"ping"}`, step))
	}
	for sc.Scan() {
		var req Request
		json.Unmarshal(sc.Bytes(), &req)
		var p struct {
			Meta struct {
				Token json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		}
		json.Unmarshal(req.Params, &p)
		switch {
		case call != nil && req.Method == "" && string(req.ID) == fmt.Sprintf(`"progress-%d"`, step):
			next()
		case call == nil && req.Method == "tools/call" && len(p.Meta.Token) > 0:
			s.count(req.Method)
			call, token, step = &req, p.Meta.Token, 0
			next()
		default:
			if reply, ok := s.Handle(sc.Bytes()); ok {
				s.write(w, reply)
			}
		}
	}
	return sc.Err()
}
