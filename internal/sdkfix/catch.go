package sdkfix

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpbridge/mcpbridge/internal/ctxkey"
)

// A Catch keeps the raw result of one tools/call as the transport
// delivered it, before go-sdk decodes it. go-sdk decodes a result whole, so
// one part it cannot decode (an image whose base64 is corrupt) fails the
// call and loses every other part; and it decodes a null result as an
// empty one. With the raw result at hand the call can be judged ([Shape])
// and salvaged ([Salvage]).
//
// The bytes are only kept, never decoded, unless go-sdk's decoding failed
// or came out empty: a result is decoded once on the way to the model.
//
// A catch rides in the context of the call, and what sees the raw messages
// fills it: a connection [Capture] wraps (stdio, go-sdk's in-memory and io
// transports) by the request's ID, and [HTTPTap] with the body of the POST
// that carried the request, which is where streamable HTTP answers it.
// Over any other transport (a legacy SSE stream, one a user built) nothing
// fills it, and go-sdk's decoding is final.
type Catch struct {
	mu     sync.Mutex
	result json.RawMessage // the result member, from a connection
	msg    []byte          // the last message of the POST's response, from HTTP
	// The connection awaiting the answer to request id for it. A
	// multi-round-trip call sends its request again under a new ID, once
	// the answer to the last one came.
	awaits *catches
	id     jsonrpc.ID
}

// WithCatch returns ctx carrying a new catch, for the tools/call made with
// it. The caller releases it when the call is over.
func WithCatch(ctx context.Context) (context.Context, *Catch) { return ride(ctx, catchKey) }

var catchKey = ctxkey.New[*Catch]("sdkfix catch")

// catchOf returns the catch ctx carries, or nil.
func catchOf(ctx context.Context) *Catch { return catchKey.Value(ctx) }

// ride returns ctx carrying, under k, a new *T for the raw messages of the
// request made with it to fill (a [Catch], a [Sent]).
func ride[T any](ctx context.Context, k *ctxkey.Key[*T]) (context.Context, *T) {
	v := new(T)
	return k.With(ctx, v), v
}

// keepResult keeps the result member of the answer.
func (c *Catch) keepResult(result json.RawMessage) {
	c.mu.Lock()
	c.result, c.msg = result, nil
	c.mu.Unlock()
}

// keepMessage keeps data, a whole JSON-RPC message of the POST's response;
// the last one is the answer, any before it notifications or requests.
func (c *Catch) keepMessage(data []byte) {
	c.mu.Lock()
	c.result, c.msg = nil, data
	c.mu.Unlock()
}

// Raw returns the result that arrived, if one did.
func (c *Catch) Raw() (json.RawMessage, bool) {
	c.mu.Lock()
	result, msg := c.result, c.msg
	c.mu.Unlock()
	if result != nil {
		return result, true
	}
	var m struct {
		Method *string         `json:"method"`
		Result json.RawMessage `json:"result"`
	}
	if len(msg) == 0 || json.Unmarshal(msg, &m) != nil || m.Method != nil || m.Result == nil {
		return nil, false
	}
	return m.Result, true
}

// Release stops a connection from keeping a result for the call, which
// has ended.
func (c *Catch) Release() {
	c.mu.Lock()
	awaits, id := c.awaits, c.id
	c.mu.Unlock()
	if awaits != nil {
		awaits.take(id)
	}
}

// catches are the calls on one connection that await their raw result, by
// request ID.
type catches struct {
	// n is len(byID), read without the lock so that a connection with no
	// call awaited pays one atomic load a message.
	n    atomic.Int64
	mu   sync.Mutex
	byID map[jsonrpc.ID]*Catch
}

// expect notes that the answer to request id goes to c.
func (cs *catches) expect(id jsonrpc.ID, c *Catch) {
	cs.mu.Lock()
	if cs.byID == nil {
		cs.byID = map[jsonrpc.ID]*Catch{}
	}
	if _, ok := cs.byID[id]; !ok {
		cs.n.Add(1)
	}
	cs.byID[id] = c
	cs.mu.Unlock()
	c.mu.Lock()
	c.awaits, c.id = cs, id
	c.mu.Unlock()
}

// take removes and returns the catch awaiting the answer to id.
func (cs *catches) take(id jsonrpc.ID) *Catch {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c, ok := cs.byID[id]
	if ok {
		delete(cs.byID, id)
		cs.n.Add(-1)
	}
	return c
}

// received gives an answer to the catch awaiting it, if any.
func (cs *catches) received(resp *jsonrpc.Response) {
	if cs.n.Load() == 0 {
		return
	}
	if c := cs.take(resp.ID); c != nil && resp.Error == nil {
		c.keepResult(resp.Result)
	}
}
