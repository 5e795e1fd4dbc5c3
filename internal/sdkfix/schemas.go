package sdkfix

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
)

// Schemas keeps the tool schemas of every tools/list result a connection
// receives, as the server wrote them, and what else go-sdk decodes away
// from a listing and from the handshake.
//
// go-sdk's client decodes a listed tool's inputSchema and outputSchema into
// a map (a jsonschema.Schema, then any), which loses the order of the
// properties; models fill arguments in the order they are declared, and a
// server orders them so (the title before the body). [Schemas.Schema] gives
// a decoded schema back as the server wrote it.
//
// go-sdk's Tool has no execution member and its ServerCapabilities no
// tasks member, which the 2025-11-25 tasks ride on (execution.taskSupport,
// capabilities.tasks). [Schemas.Execution] and [Schemas.Capabilities] give
// them as the server wrote them.
//
// It is fed by the connection ([Capture]) over stdio and go-sdk's
// in-memory, io and command transports, and over HTTP by the client's
// transport ([HTTPTap]), as go-sdk's HTTP connections cannot be wrapped.
// Any other transport feeds none, and its schemas come in name order.
type Schemas struct {
	// awaited is len(pending), read without the lock so that every other
	// response passes by at the cost of one atomic load.
	awaited atomic.Int64

	mu           sync.Mutex
	pending      map[string]string     // method by request ID, of the requests awaiting their result
	schemas      map[string]rawSchemas // by tool name, from the current listing
	capabilities json.RawMessage       // of the last initialize result
	// The latest elicitations' requestedSchema, newest last (forms.go).
	recentForms []json.RawMessage
}

type rawSchemas struct{ input, output, execution json.RawMessage }

// NewSchemas returns an empty keeper of schemas.
func NewSchemas() *Schemas {
	return &Schemas{pending: map[string]string{}, schemas: map[string]rawSchemas{}}
}

// watched are the methods whose results a Schemas reads.
var watched = []string{"tools/list", "initialize"}

// idKey makes a request ID comparable across its decoded forms.
func idKey(id any) string {
	switch id := id.(type) {
	case string:
		return "s" + id
	case float64:
		return "n" + strconv.FormatFloat(id, 'f', -1, 64)
	case int64:
		return "n" + strconv.FormatInt(id, 10)
	}
	return ""
}

// sent notes request id, if it is a listing or a handshake. params are its
// parameters: a listing without a cursor starts over, so the schemas of the
// last one are dropped (a tool it named may be gone), and never grow stale.
func (k *Schemas) sent(id any, method string, params json.RawMessage) {
	if !slices.Contains(watched, method) {
		return // a tools/call, say: its id is not formatted (an allocation)
	}
	key := idKey(id)
	if key == "" {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if method == "tools/list" && !hasCursor(params) {
		clear(k.schemas)
	}
	if k.pending[key] == "" {
		k.awaited.Add(1)
	}
	k.pending[key] = method
}

// hasCursor reports whether tools/list params ask for a later page.
func hasCursor(params json.RawMessage) bool {
	var p struct {
		Cursor string `json:"cursor"`
	}
	return len(params) > 0 && json.Unmarshal(params, &p) == nil && p.Cursor != ""
}

// Settle forgets the listings still awaited: one that failed or was
// cancelled is never answered, and while one is awaited the keeper reads
// along with every answer. A listing calls it when it is over.
func (k *Schemas) Settle() {
	if k == nil {
		return
	}
	k.mu.Lock()
	clear(k.pending)
	k.awaited.Store(0)
	k.mu.Unlock()
}

// waiting reports whether a listing is awaited.
func (k *Schemas) waiting() bool { return k.awaited.Load() > 0 }

// received takes in the result of request id, if it is a listing or a
// handshake.
func (k *Schemas) received(id any, result json.RawMessage) {
	k.mu.Lock()
	defer k.mu.Unlock()
	key := idKey(id)
	method := k.pending[key]
	if method == "" {
		return
	}
	delete(k.pending, key)
	k.awaited.Add(-1)
	if method == "initialize" {
		var init struct {
			Capabilities json.RawMessage `json:"capabilities"`
		}
		if json.Unmarshal(result, &init) == nil {
			k.capabilities = init.Capabilities
		}
		return
	}
	var page struct {
		Tools []struct {
			Name         string          `json:"name"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
			Execution    json.RawMessage `json:"execution"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &page) == nil {
		for _, t := range page.Tools {
			k.schemas[t.Name] = rawSchemas{t.InputSchema, t.OutputSchema, t.Execution}
		}
	}
}

// Execution returns the execution member of the named tool in the current
// listing as the server wrote it, or nil.
func (k *Schemas) Execution(name string) json.RawMessage {
	if k == nil {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.schemas[name].execution
}

// Capabilities returns the capabilities of the last initialize result as
// the server wrote them, or nil (none was read: the transport showed none,
// or the handshake was server/discover, whose capabilities go-sdk keeps
// whole).
func (k *Schemas) Capabilities() json.RawMessage {
	if k == nil {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.capabilities
}

// Schema returns the input or output schema of the named tool as the server
// wrote it (compacted), if it says the same as v, go-sdk's decoding of it; a
// listing read since may have changed it. Otherwise it returns v encoded.
func (k *Schemas) Schema(name string, output bool, v any) json.RawMessage {
	if v == nil {
		return nil
	}
	decoded, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	if k == nil {
		return decoded
	}
	k.mu.Lock()
	s := k.schemas[name]
	k.mu.Unlock()
	raw := s.input
	if output {
		raw = s.output
	}
	var compact bytes.Buffer
	if len(raw) == 0 || json.Compact(&compact, raw) != nil || !sameJSON(raw, decoded) {
		return decoded
	}
	return compact.Bytes()
}

// sameJSON reports whether a and b hold the same JSON value, key order aside.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ca, _ := json.Marshal(x)
	cb, _ := json.Marshal(y)
	return string(ca) == string(cb)
}

// request notes the tools/list or initialize request req carries, if it is
// one, and reports whether it is. Only those are decoded: go-sdk writes the
// method near the start, so a look at the first bytes spares every other
// request (a tool call's arguments may be large).
func (k *Schemas) request(req *http.Request) bool {
	if k == nil || req.GetBody == nil {
		return false
	}
	body, err := req.GetBody()
	if err != nil {
		return false
	}
	defer body.Close()
	head := make([]byte, 256)
	n, _ := io.ReadFull(body, head)
	if !slices.ContainsFunc(watched, func(m string) bool { return bytes.Contains(head[:n], []byte(`"`+m+`"`)) }) {
		return false
	}
	var msg struct {
		ID     any             `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.NewDecoder(io.MultiReader(bytes.NewReader(head[:n]), body)).Decode(&msg) != nil || !slices.Contains(watched, msg.Method) {
		return false
	}
	k.sent(msg.ID, msg.Method, msg.Params)
	return true
}

// message shows the keeper one JSON-RPC message or batch.
func (k *Schemas) message(data []byte) {
	type response struct {
		ID     any             `json:"id"`
		Result json.RawMessage `json:"result"`
	}
	data = bytes.TrimSpace(data)
	var batch []response
	if len(data) > 0 && data[0] == '[' {
		if json.Unmarshal(data, &batch) != nil {
			return
		}
	} else {
		var one response
		if json.Unmarshal(data, &one) != nil {
			return
		}
		batch = append(batch, one)
	}
	for _, r := range batch {
		if len(r.Result) > 0 {
			k.received(r.ID, r.Result)
		}
	}
}
