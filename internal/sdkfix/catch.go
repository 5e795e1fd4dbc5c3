package sdkfix

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpbridge/mcpbridge/internal/ctxkey"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// A Catch keeps the raw result of one tools/call as the transport
// delivered it, before go-sdk decodes it, and takes a plain one from
// go-sdk altogether ([Catch.Taken]). go-sdk decodes a result whole, so
// one part it cannot decode (an image whose base64 is corrupt) fails the
// call and loses every other part; and it decodes a null result as an
// empty one. With the raw result at hand the call can be judged ([Shape])
// and salvaged ([Salvage]).
//
// The bytes are only kept, never decoded, unless go-sdk's decoding failed
// or came out empty: a result is decoded once on the way to the model.
// A plain result (a complete one, content an array: what a relay passes on
// and a host decodes as it likes) is not even decoded by go-sdk, which
// decodes every result with a decoder of 32 KB, whatever its size: go-sdk
// is handed an error in its place, which it returns as it is, and the
// caller takes the result from the catch ([Catch.Taken]).
//
// A catch rides in the context of the call, and what sees the raw messages
// fills it: a connection [Capture] wraps (stdio, go-sdk's in-memory and io
// transports) by the request's ID, and [HTTPTap] with the body of the POST
// that carried the request, which is where streamable HTTP answers it.
// Over any other transport (a legacy SSE stream, one a user built) nothing
// fills it, and go-sdk's decoding is final.
type Catch struct {
	mu     sync.Mutex
	result json.RawMessage // the result member, from a connection, or taken
	msg    []byte          // the last message of the POST's response, from HTTP
	taken  bool            // result was taken: go-sdk was handed errTaken
	// The connection awaiting the answer to request id for it. A
	// multi-round-trip call sends its request again under a new ID, once
	// the answer to the last one came.
	awaits *catches
	id     jsonrpc.ID
}

// WithCatch returns ctx carrying a new catch, for the tools/call made with
// it. The caller releases it when the call is over.
func WithCatch(ctx context.Context) (context.Context, *Catch) { return ride(ctx, catchKey) }

// Catching is [WithCatch] with the caller's own catch c, emptied: one a
// caller's call holds already (the tools/call sent again after a URL
// elicitation, say), at the cost of no allocation of its own. c must have
// been released, if it was used.
func Catching(ctx context.Context, c *Catch) context.Context {
	*c = Catch{}
	return catchKey.With(ctx, c)
}

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

// errTaken is what go-sdk is handed in the place of a result a catch took.
// A server that answers with the same error took nothing: [Catch.Taken]
// tells by the catch.
var errTaken = &jsonrpc.Error{Code: -32099, Message: "mcpbridge: the result was taken before go-sdk decoded it"}

// Taken returns the result the transport took from go-sdk, and true, when
// err, what go-sdk's call returned, says it was: the call is then to be
// judged by the raw result alone. A result is taken only if [Plain].
func (c *Catch) Taken(err error) (json.RawMessage, bool) {
	// errors.Is matches a JSON-RPC error by its code, without an
	// allocation: a server's error of the same code took nothing, which
	// the catch knows.
	if err == nil || !errors.Is(err, errTaken) {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.result, c.taken
}

// take takes result, the answer's, if it is plain, and reports whether it
// did.
func (c *Catch) take(result json.RawMessage) bool {
	if !Plain(result) {
		return false
	}
	c.mu.Lock()
	c.result, c.msg, c.taken = result, nil, true
	c.mu.Unlock()
	return true
}

// message takes in data, a whole JSON-RPC message of the POST's response,
// and returns what go-sdk is to read in its place: the answer with its
// result taken, nil for any other message (kept, the last one).
func (c *Catch) message(data []byte) []byte {
	var id, result, wireErr []byte
	var method bool
	if rawjson.Members(data, func(k, v []byte) bool {
		switch string(k) {
		case "id":
			id = v
		case "result":
			result = v
		case "error":
			wireErr = v
		case "method":
			method = true
		}
		return true
	}) && !method && id != nil && (wireErr == nil || string(wireErr) == "null") && rawjson.Valid(data, -1) && c.take(result) {
		swap, _ := json.Marshal(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   *jsonrpc.Error  `json:"error"`
		}{"2.0", id, errTaken})
		return swap
	}
	c.keepMessage(data)
	return nil
}

// Plain reports whether result, a tools/call's as written, is one a catch
// takes from go-sdk: an object whose members read where they are written
// ([rawjson.Members]), of resultType "complete" or none, content an array,
// and isError a boolean or none. Anything else (a task, a question, a
// shape the protocol does not allow) goes to go-sdk, for the caller to
// judge its decoding.
func Plain(result json.RawMessage) bool {
	var resultType, content, isError []byte
	if !rawjson.Members(result, func(k, v []byte) bool {
		switch string(k) {
		case "resultType":
			resultType = v
		case "content":
			content = v
		case "isError":
			isError = v
		}
		return true
	}) {
		return false
	}
	switch string(resultType) {
	case "", "null", `"complete"`:
	default:
		return false
	}
	switch string(isError) {
	case "", "null", "true", "false":
	default:
		return false
	}
	return len(content) > 0 && content[0] == '['
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
type catches struct{ awaited[*Catch] }

// expect notes that the answer to request id goes to c.
func (cs *catches) expect(id jsonrpc.ID, c *Catch) {
	cs.take(id)
	cs.add(id, c)
	c.mu.Lock()
	c.awaits, c.id = cs, id
	c.mu.Unlock()
}

// take removes and returns the catch awaiting the answer to id.
func (cs *catches) take(id jsonrpc.ID) *Catch {
	c, _ := cs.awaited.take(id)
	return c
}

// awaited are what awaits the answers to requests, by request ID.
type awaited[T any] struct {
	// n is len(byID), read without the lock so that a connection with
	// nothing awaited pays one atomic load a message.
	n    atomic.Int64
	mu   sync.Mutex
	byID map[jsonrpc.ID]T
}

// add notes that the answer to id goes to v, and reports whether it did:
// not if something awaits it already.
func (a *awaited[T]) add(id jsonrpc.ID, v T) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.byID[id]; ok {
		return false
	}
	if a.byID == nil {
		a.byID = map[jsonrpc.ID]T{}
	}
	a.byID[id] = v
	a.n.Add(1)
	return true
}

// take removes and returns what awaits the answer to id, if anything.
func (a *awaited[T]) take(id jsonrpc.ID) (T, bool) {
	var v T
	if a.n.Load() == 0 {
		return v, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	v, ok := a.byID[id]
	if ok {
		delete(a.byID, id)
		a.n.Add(-1)
	}
	return v, ok
}

// received gives an answer to the catch awaiting it, if any, which takes
// a plain result: go-sdk is handed errTaken in its place.
func (cs *catches) received(resp *jsonrpc.Response) {
	c := cs.take(resp.ID)
	switch {
	case c == nil || resp.Error != nil:
	case c.take(resp.Result):
		resp.Result, resp.Error = nil, errTaken
	default:
		c.keepResult(resp.Result)
	}
}
