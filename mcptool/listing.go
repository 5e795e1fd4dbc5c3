package mcptool

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// schemaKeeper sits on a stdio connection and keeps the tool schemas of
// every tools/list result it reads, as the server wrote them. go-sdk decodes
// a schema into a map, which loses the order of its properties; models fill
// arguments in the order they are declared, and a server orders them so
// (the title before the body). Discovery takes the schemas from here. Over
// HTTP there is no keeper (see [capture]), and properties come in name order.
type schemaKeeper struct {
	mcp.Connection

	mu      sync.Mutex
	pending map[jsonrpc.ID]bool   // tools/list requests awaiting their result
	schemas map[string]rawSchemas // by tool name, from the latest listing
}

type rawSchemas struct{ input, output json.RawMessage }

func keepSchemas(conn mcp.Connection) *schemaKeeper {
	return &schemaKeeper{Connection: conn, pending: map[jsonrpc.ID]bool{}, schemas: map[string]rawSchemas{}}
}

func (k *schemaKeeper) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/list" && req.ID.IsValid() {
		k.mu.Lock()
		k.pending[req.ID] = true
		k.mu.Unlock()
	}
	return k.Connection.Write(ctx, msg)
}

func (k *schemaKeeper) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := k.Connection.Read(ctx)
	resp, ok := msg.(*jsonrpc.Response)
	if err != nil || !ok {
		return msg, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.pending[resp.ID] {
		return msg, err
	}
	delete(k.pending, resp.ID)
	var page struct {
		Tools []struct {
			Name         string          `json:"name"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if resp.Error == nil && json.Unmarshal(resp.Result, &page) == nil {
		for _, t := range page.Tools {
			k.schemas[t.Name] = rawSchemas{t.InputSchema, t.OutputSchema}
		}
	}
	return msg, err
}

// schema returns the input or output schema of the named tool as the server
// wrote it, if it is the one go-sdk decoded into v (a listing read since
// may have changed it); otherwise v encoded.
func (k *schemaKeeper) schema(name string, output bool, v any) json.RawMessage {
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
	// The raw schema is used only when it says the same as the decoded one,
	// so that what is validated and what the model sees never differ.
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
