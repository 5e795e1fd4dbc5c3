package streamable

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Transport connects to an MCP server over streamable HTTP. Each
// connection writes a message as one POST, and reads the messages of
// every answer and of the standalone stream.
type Transport struct {
	// Endpoint is the URL of the MCP endpoint.
	Endpoint string
	// Client sends the requests. Its RoundTripper bounds what the server
	// sends (mcpbridge's does, internal/sdkfix.HTTPTap): the transport
	// reads each message whole.
	Client *http.Client
	// OAuth, if set, authorizes the requests: its token goes in each, and
	// a request answered 401 or 403 is sent again, once, after Authorize.
	OAuth auth.OAuthHandler
	// InputSchema, if set, returns the input schema of a tool as listed,
	// whose x-mcp-header arguments a tools/call of protocol 2026-07-28 or
	// later sends in Mcp-Param-* headers too; nil for a tool not listed.
	InputSchema func(tool string) json.RawMessage
	// Logger hears what the server did wrong that the connection goes
	// past (a stream it could not open, a status it should not have
	// sent); nil is none.
	Logger *slog.Logger
}

// Connect returns a connection to the server. It sends nothing: the
// session starts with the first message go-sdk writes.
func (t *Transport) Connect(ctx context.Context) (mcp.Connection, error) {
	u, err := url.Parse(t.Endpoint)
	if err != nil {
		return nil, err
	}
	logger := t.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	// The connection outlives the context it was made with, whose values
	// it keeps (an OAuth handler may need them).
	life, end := context.WithCancel(context.WithoutCancel(ctx))
	return &Conn{
		t:        t,
		url:      u,
		logger:   logger,
		life:     life,
		end:      end,
		incoming: make(chan jsonrpc.Message, 10),
		done:     make(chan struct{}),
		failed:   make(chan struct{}),
	}, nil
}

// A Conn is a connection of a [Transport]: an mcp.Connection whose
// messages go out as POSTs and come in on the POSTs' answers and the
// standalone stream. Write sends a message and, for a request, reads its
// answer before it returns (the stream of a subscriptions/listen apart),
// so that the caller's answer takes no hand-over between goroutines.
type Conn struct {
	t        *Transport
	url      *url.URL
	logger   *slog.Logger
	life     context.Context // until Close
	end      context.CancelFunc
	incoming chan jsonrpc.Message
	answer   func(*jsonrpc.Response) bool // set by Answer, or nil
	done     chan struct{}                // closed by Close

	failOnce sync.Once
	failure  error
	failed   chan struct{} // closed with failure set

	closeOnce sync.Once
	closeErr  error
	streams   sync.WaitGroup // the standalone stream, and subscriptions/listen

	mu      sync.Mutex
	session string // the server's Mcp-Session-Id, once it gave one
	version string // the protocol version of the session, once known
	// The values of their headers, made once: never modified.
	sessionHeader, versionHeader []string
	listening                    bool // the standalone stream was opened
	closed                       bool
	bodies                       map[uint64]io.Closer // the answers being read, which Close ends
	nextBody                     uint64
}

// errConnClosed is the error of a Write after Close.
var errConnClosed = errors.New("the connection is closed")

// track notes that body, an answer's, is being read, for Close to end it,
// and returns the id to forget it by.
func (c *Conn) track(body io.Closer) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		body.Close()
		return 0
	}
	if c.bodies == nil {
		c.bodies = map[uint64]io.Closer{}
	}
	c.nextBody++
	c.bodies[c.nextBody] = body
	return c.nextBody
}

func (c *Conn) untrack(id uint64) {
	c.mu.Lock()
	delete(c.bodies, id)
	c.mu.Unlock()
}

// SessionID returns the server's Mcp-Session-Id, "" if it gave none.
func (c *Conn) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session
}

// Read returns the next message the server sent.
func (c *Conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if err := c.failedWith(); err != nil {
		return nil, err
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.failed:
		return nil, c.failedWith()
	case <-c.done:
		return nil, io.EOF // go-sdk's end of a connection
	case msg := <-c.incoming:
		return msg, nil
	}
}

// deliver hands msg to Read, or an answer to the function given to
// Answer if it takes it, and reports false if the connection was closed
// first.
func (c *Conn) deliver(msg jsonrpc.Message) bool {
	if resp, ok := msg.(*jsonrpc.Response); ok && c.answer != nil && c.answer(resp) {
		return true
	}
	select {
	case c.incoming <- msg:
		return true
	case <-c.done:
		return false
	}
}

// Answer has the connection give each response it reads to f before Read
// would return it, on the goroutine that read it (the caller's Write, for
// the answer to its request): one f reports it took goes no further. It
// must be set before the connection is used.
func (c *Conn) Answer(f func(*jsonrpc.Response) bool) { c.answer = f }

// fail ends the connection with err: Read returns it, and so every call
// in flight fails. An err wrapping mcp.ErrSessionMissing says the server
// forgot the session, which Close then does not end.
func (c *Conn) fail(err error) {
	c.failOnce.Do(func() {
		c.failure = err
		close(c.failed)
	})
}

func (c *Conn) failedWith() error {
	select {
	case <-c.failed:
		return c.failure
	default:
		return nil
	}
}

// closeTimeout bounds the DELETE that ends the session on Close: a server
// that takes the connection and never answers must not hold Close.
const closeTimeout = 5 * time.Second

// Close ends the session on the server (a DELETE, when the server gave a
// session it has not forgotten) and the connection: the standalone
// stream and every request in flight end.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		if session := c.SessionID(); session != "" && !errors.Is(c.failedWith(), mcp.ErrSessionMissing) {
			ctx, stop := context.WithTimeout(c.life, closeTimeout)
			req, err := c.request(ctx, http.MethodDelete, nil, "")
			if err == nil {
				var resp *http.Response
				if resp, err = c.t.Client.Do(req); err == nil {
					resp.Body.Close()
				}
			}
			stop()
			c.closeErr = err
		}
		c.end()
		c.mu.Lock()
		c.closed = true
		for _, body := range c.bodies {
			body.Close()
		}
		c.mu.Unlock()
		close(c.done)
		c.streams.Wait()
	})
	return c.closeErr
}

// setSession keeps the session the server named in its answer; an answer
// naming another is an error.
func (c *Conn) setSession(resp *http.Response) error {
	id := resp.Header.Get(sessionHeader)
	if id == "" {
		return nil
	}
	c.mu.Lock()
	had := c.session
	if had == "" {
		c.session, c.sessionHeader = id, []string{id}
	}
	c.mu.Unlock()
	if had != "" && had != id {
		return fmt.Errorf("mismatching session IDs %q and %q", had, id)
	}
	return nil
}

// setVersion keeps the protocol version of the session.
func (c *Conn) setVersion(v string) {
	if v == "" {
		return
	}
	c.mu.Lock()
	c.version, c.versionHeader = v, []string{v}
	c.mu.Unlock()
}

// headers returns the values of the session's Mcp-Session-Id and
// Mcp-Protocol-Version headers, nil for those not known yet.
func (c *Conn) headers() (session, version []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionHeader, c.versionHeader
}

func (c *Conn) isClosed() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}
