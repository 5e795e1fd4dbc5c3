package sdkfix

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/stdio"
	"github.com/mcpbridge/mcpbridge/internal/streamable"
)

// A Capture is a transport that remembers the connection it made, for its
// maker to reach under go-sdk's session (to close it first, to ask it why
// it failed), and reads along with it where it can: a connection that may
// be wrapped goes to go-sdk with Schemas reading the listings it receives,
// a [Catch] keeping the raw result of a call that asks, a [Sent] learning
// a request's id, and Unheard shown the notifications go-sdk drops. Only ours ([stdio.Conn],
// [streamable.Conn]) and go-sdk's stream connection (its in-memory, io and
// command transports) may: go-sdk calls unexported methods on its other
// connections (the streamable HTTP client's sessionUpdated, which sends
// the protocol version header and opens the stream of the server's
// notifications), which a wrapper would hide. go-sdk's legacy SSE
// transport is read by [HTTPTap] instead.
type Capture struct {
	mcp.Transport
	// Schemas, if set, reads the listings the connection receives.
	Schemas *Schemas
	// Unheard, if set, is shown the notifications go-sdk drops.
	Unheard Unheard

	mu   sync.Mutex
	conn mcp.Connection
	tap  *tapConn // conn wrapped, or nil
}

// Connect connects the transport and remembers the connection.
func (c *Capture) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := c.Transport.Connect(ctx)
	if err != nil {
		return conn, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.conn = conn
	if !wrappable(conn) {
		return conn, nil
	}
	c.tap = &tapConn{Connection: conn, schemas: c.Schemas, unheard: c.Unheard}
	c.tap.waiting.done = make(chan struct{})
	if a, ok := conn.(answerer); ok {
		// Answered where it is read: go-sdk's reading goroutine, which
		// would pass it on, is not woken for it.
		a.Answer(c.tap.answer)
	}
	if sc, ok := conn.(*stdio.Conn); ok {
		c.tap.stdio = sc
	}
	return c.tap, nil
}

// wrappable reports whether conn may go to go-sdk behind a wrapper: ours,
// or go-sdk's stream connection, which has no method go-sdk looks for on a
// client's connection. Its type is unexported, hence the name.
func wrappable(conn mcp.Connection) bool {
	switch conn.(type) {
	case *stdio.Conn, *streamable.Conn: // ours
		return true
	}
	return reflect.TypeOf(conn).String() == ioConnType
}

// ioConnType is the name of go-sdk's stream connection type.
const ioConnType = "*mcp.ioConn"

// Conn returns the connection made, or nil.
func (c *Capture) Conn() mcp.Connection {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conn
}

// A tapConn shows the messages of its connection to the schemas and keeps
// the raw results of the calls that ask.
type tapConn struct {
	mcp.Connection
	schemas *Schemas
	unheard Unheard
	calls   catches
	waiting waiters      // calls sent with Call
	stdio   *stdio.Conn  // the connection, if stdio: a caller reads its answer (Await)
	written atomic.Int64 // messages written: see answer
}

func (c *tapConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
		if c.schemas != nil {
			c.schemas.sent(req.ID.Raw(), req.Method, req.Params)
		}
		if rc := catchOf(ctx); rc != nil {
			c.calls.expect(req.ID, rc)
		}
		if sent := sentOf(ctx); sent != nil {
			sent.set(req.ID)
		}
	}
	c.written.Add(1) // see answer
	return c.Connection.Write(ctx, msg)
}

func (c *tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			c.waiting.end(err)
			return msg, err
		}
		if resp, ok := msg.(*jsonrpc.Response); ok && c.answer(resp) {
			continue
		}
		return c.read(msg)
	}
}

// answer gives resp to the call sent with Call that awaits it, shown to
// the schemas as go-sdk's answers are, and reports whether one did.
func (c *tapConn) answer(resp *jsonrpc.Response) bool {
	answer := c.waiting.take(resp.ID)
	if answer == nil {
		return false
	}
	c.schemas.forms(resp.Result) // an input_required result's
	// What was done before a message was written happens before what is
	// done with an answer read after it: a host's handler that noted
	// something and then answered the server, which then finished the
	// call, is seen by the call's caller. The server orders them, which
	// the Go memory model does not see; go-sdk's reading goroutine
	// ordered them by a lock of its own.
	c.written.Load()
	answer <- resp // buffered, and given once
	return true
}

// Close closes the connection, and fails the calls sent with Call that
// await their answers.
func (c *tapConn) Close() error {
	err := c.Connection.Close()
	c.waiting.end(fmt.Errorf("%w: %w", mcp.ErrConnectionClosed, errClosing))
	return err
}

// errClosing is why a call awaited on a connection closed meanwhile
// failed, as go-sdk says it.
var errClosing = errors.New("jsonrpc2: client is closing")

// read shows msg, read and not answered to a Call, to what reads along.
func (c *tapConn) read(msg jsonrpc.Message) (jsonrpc.Message, error) {
	if req, ok := msg.(*jsonrpc.Request); ok {
		c.schemas.forms(req.Params) // an elicitation/create's
		if c.unheard != nil {
			c.unheard.request(req)
		}
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return msg, nil
	}
	c.calls.received(resp)
	c.schemas.forms(resp.Result) // an input_required result's
	if c.schemas != nil && c.schemas.waiting() && resp.Error == nil {
		c.schemas.received(resp.ID.Raw(), resp.Result)
	}
	return msg, nil
}
