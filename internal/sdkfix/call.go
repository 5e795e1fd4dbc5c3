package sdkfix

import (
	"context"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpbridge/mcpbridge/internal/stdio"
)

// A Caller sends a request on a connection and returns its answer, both
// past go-sdk: the connection hands the answer to the caller, where go-sdk
// would read it, decode it and hand it to the caller in turn. Everything
// else the server sends meanwhile (its notifications, its own requests)
// goes to go-sdk as before. It is what a tool call is sent with: go-sdk's
// generic request machinery is most of what a call costs the client.
type Caller interface {
	// Call writes req, a request with an ID of the caller's own (no ID
	// go-sdk makes: it counts from 1), and waits for its answer, for ctx
	// to end, or for the connection to end. An error is the write's, the
	// connection's end (wrapping what ended it) or ctx's; a JSON-RPC error
	// the server answered is in the response.
	Call(ctx context.Context, req *jsonrpc.Request) (*jsonrpc.Response, error)
	// Write writes msg as go-sdk's messages are written: a notification
	// about a call, say.
	Write(ctx context.Context, msg jsonrpc.Message) error
}

// Caller returns the connection made as a [Caller], or nil if it goes to
// go-sdk unwrapped (see [Capture]).
func (c *Capture) Caller() Caller {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tap == nil {
		return nil // not a nil *tapConn
	}
	return c.tap
}

// An answerer is a connection that hands an answer to a function of ours
// on the goroutine that read it, before Read would return it: ours do.
type answerer interface {
	// Answer has the connection give each response it reads to f first:
	// one f reports it took goes no further. It is set before the
	// connection is used.
	Answer(f func(*jsonrpc.Response) bool)
}

// waiters are the calls a tapConn awaits the answers of, by request ID.
type waiters struct {
	awaited[chan *jsonrpc.Response]
	mu    sync.Mutex // guards ended
	ended error      // why the connection ended, once it did
	done  chan struct{}
	// answers are the channels of answered calls, used again: no longer
	// awaited (see take) and emptied, nothing else sends on one. The
	// connection's own: a channel is of the goroutines that made it
	// (testing/synctest's bubble).
	answers sync.Pool
}

// Call sends req and awaits its answer, as [Caller] says.
func (c *tapConn) Call(ctx context.Context, req *jsonrpc.Request) (*jsonrpc.Response, error) {
	w := &c.waiting
	answer, _ := w.answers.Get().(chan *jsonrpc.Response)
	if answer == nil {
		answer = make(chan *jsonrpc.Response, 1)
	}
	w.mu.Lock()
	ended := w.ended
	w.mu.Unlock()
	if ended != nil {
		return nil, ended
	}
	if !w.add(req.ID, answer) {
		return nil, fmt.Errorf("request ID %v is awaited already", req.ID.Raw())
	}
	defer w.forget(req.ID)
	if c.stdio != nil {
		req.Extra = stdio.Awaited{}
	}
	if err := c.Write(ctx, req); err != nil {
		return nil, err
	}
	if c.stdio != nil {
		if resp, ok := c.stdio.Await(ctx, answer); ok {
			w.answers.Put(answer) // given once, and no longer awaited
			return resp, nil
		}
	}
	select {
	case resp := <-answer:
		w.answers.Put(answer) // given once, and no longer awaited
		return resp, nil
	case <-w.done:
		select {
		case resp := <-answer: // it came before the end
			return resp, nil
		default:
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		return nil, w.ended
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// forget stops awaiting the answer to id.
func (w *waiters) forget(id jsonrpc.ID) { w.take(id) }

// take returns, no longer awaited, the channel of the call awaiting the
// answer to id, or nil.
func (w *waiters) take(id jsonrpc.ID) chan *jsonrpc.Response {
	answer, _ := w.awaited.take(id)
	return answer
}

// end fails the calls awaited, and every call after, with err: the
// connection's reading ended.
func (w *waiters) end(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended != nil {
		return
	}
	w.ended = err
	close(w.done)
}
