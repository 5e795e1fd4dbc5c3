package sdkfix

import (
	"bytes"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Unheard hands over, by method, notifications that go-sdk's client drops
// unread: it takes only the standard notifications it knows, and the
// status notification of the 2025-11-25 tasks (notifications/tasks/status)
// is not one of them. A [Capture]'s connection shows it every notification
// it reads, and an [HTTPTap] those of the event streams not answering a
// POST (the streamable transport's GET stream, the legacy SSE stream),
// where a server sends what no request asked for.
//
// The functions are called on the connection's reading goroutine, one
// notification at a time, and must not block.
type Unheard map[string]func(params json.RawMessage)

// request shows u a message a connection read.
func (u Unheard) request(req *jsonrpc.Request) {
	if fn := u[req.Method]; fn != nil && !req.ID.IsValid() {
		fn(req.Params)
	}
}

// message shows u a whole JSON-RPC message of an event stream. Only one
// that names a method of u is decoded.
func (u Unheard) message(data []byte) {
	for method, fn := range u {
		if !bytes.Contains(data, []byte(`"`+method+`"`)) {
			continue
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(data, &msg) == nil && msg.ID == nil && msg.Method == method {
			fn(msg.Params)
		}
	}
}
