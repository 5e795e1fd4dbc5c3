package streamable

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/gather"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// An event is one server-sent event, the fields go-sdk reads of it.
type event struct {
	name, id, retry string
	data            []byte // the data lines joined by newlines; the event's own
}

func (e *event) empty() bool {
	return e.name == "" && e.id == "" && e.retry == "" && len(e.data) == 0
}

// errMalformed is a line of an event stream that is no field: the stream
// is broken, and the connection with it, as go-sdk has it.
var errMalformed = errors.New("malformed line in SSE stream")

// events reads the events of a stream, as go-sdk's reader does: a line
// "field: value" sets a field (data lines are joined, each trimmed of
// space), a blank line ends the event, a line that begins with ':' is a
// comment.
type events struct {
	r    *bufio.Reader
	long gather.Buffer // a line longer than r's buffer, gathered
}

// readers are what the streams are read through, kept for the next: a
// stream costs no buffer of its own.
var readers = sync.Pool{New: func() any { return &events{r: bufio.NewReaderSize(nil, 4096)} }}

// next reads the next event that is not empty into e, and returns io.EOF
// at the end of the stream.
func (s *events) next(e *event) error {
	*e = event{}
	for {
		line, owned, err := s.line()
		if err != nil && err != io.EOF {
			return fmt.Errorf("error reading event: %v", err)
		}
		eof := err == io.EOF
		line = bytes.TrimRight(line, "\r\n")
		if len(line) > 0 {
			key, value, found := bytes.Cut(line, []byte{':'})
			if !found {
				return fmt.Errorf("%w: %q", errMalformed, line)
			}
			switch string(key) {
			case "event":
				e.name = string(bytes.TrimSpace(value))
			case "id":
				e.id = string(bytes.TrimSpace(value))
			case "retry":
				e.retry = string(bytes.TrimSpace(value))
			case "data":
				value = bytes.TrimSpace(value)
				switch {
				case e.data != nil:
					e.data = append(append(e.data, '\n'), value...)
				case owned:
					// The gathered line, too large for its buffer to be
					// kept, is the event's: not copied once more.
					e.data = value
				default:
					e.data = append(make([]byte, 0, len(value)), value...)
				}
			}
			if !eof {
				continue
			}
		}
		switch {
		case !e.empty():
			return nil
		case eof:
			return io.EOF
		}
		*e = event{}
	}
}

// line reads one line, valid until the next read; or, if owned, the
// caller's to keep: a line longer than r's buffer is gathered in s.long
// (as the stdio connection gathers one), and one past gather.Keep is
// handed over.
func (s *events) line() (line []byte, owned bool, err error) {
	line, err = s.r.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return line, false, err
	}
	s.long.Reset()
	s.long.Write(line)
	for err == bufio.ErrBufferFull {
		line, err = s.r.ReadSlice('\n')
		s.long.Write(line)
	}
	if s.long.Len() > gather.Keep {
		return s.long.Take(nil), true, err
	}
	return s.long.Bytes(), false, err
}

// finishWithin bounds how long the stream of a request is read on after
// its answer: the server ends it then (it SHOULD), and the connection is
// used again; one that does not is cut.
const finishWithin = 100 * time.Millisecond

// stream reads the event stream resp, the answer to req (the message msg;
// both nil for the standalone stream), handing each message to Read: for
// a request until its answer came, then what follows, within finishWithin
// if bounded; for the standalone stream until Close. A stream that ends
// before (a server restarting, a proxy's timeout) is resumed with a GET
// from its last event's id, as go-sdk does. Close ends it.
func (c *Conn) stream(ctx context.Context, msg jsonrpc.Message, req *jsonrpc.Request, resp *http.Response, bounded bool) {
	var last string
	retries := 0
	for {
		lastID, delay, over := c.read(ctx, msg, req, resp, bounded)
		if over || lastID == "" && req != nil {
			return
		}
		if lastID != last {
			retries, last = 0, lastID
		} else if retries++; retries > maxRetries {
			// A server that ends the stream again and again, sending
			// nothing new, is not waited for for ever.
			if ctx.Err() == nil {
				c.fail(fmt.Errorf("%s: exceeded %d retries without progress (session ID: %v)", about(msg), maxRetries, c.SessionID()))
			}
			return
		}
		next, err := c.connectSSE(ctx, lastID, delay, false)
		if err != nil {
			if ctx.Err() == nil {
				c.fail(fmt.Errorf("%s: failed to reconnect (session ID: %v): %v", about(msg), c.SessionID(), err))
			}
			return
		}
		if err := c.check(msg, next); err != nil {
			next.Body.Close()
			c.fail(err)
			return
		}
		resp = next
	}
}

// about names the stream of msg in an error.
func about(msg jsonrpc.Message) string {
	if msg == nil {
		return "standalone SSE stream"
	}
	return summary(msg)
}

// read reads one response's stream, as [Conn.stream] says, and returns
// the id of its last event and the delay its server asked for before a
// reconnection; over reports that nothing is to be resumed: the answer
// came, the caller gave up, the connection ended.
func (c *Conn) read(ctx context.Context, msg jsonrpc.Message, req *jsonrpc.Request, resp *http.Response, bounded bool) (lastID string, delay time.Duration, over bool) {
	id := c.track(resp.Body)
	s := readers.Get().(*events)
	r := s.r
	r.Reset(resp.Body)
	answered := false
	defer func() {
		// Read to the end, so that the connection is used again.
		if answered && bounded {
			finish(r, resp.Body)
		} else {
			io.Copy(io.Discard, r)
		}
		resp.Body.Close()
		c.untrack(id)
		r.Reset(nil)
		readers.Put(s)
	}()
	var e event
	for {
		err := s.next(&e)
		if err == io.EOF {
			break
		}
		if err != nil {
			if ctx.Err() != nil || c.isClosed() {
				return "", 0, true // the caller gave up, or Close: nothing to resume
			}
			if errors.Is(err, errMalformed) {
				c.fail(fmt.Errorf("%s: %v", about(msg), err))
				return "", 0, true
			}
			break
		}
		if e.id != "" {
			lastID = e.id
		}
		if e.retry != "" {
			if n, err := strconv.ParseInt(e.retry, 10, 64); err == nil {
				delay = time.Duration(n) * time.Millisecond
			}
		}
		// An event without data primes a stream's resumption (SEP-1699);
		// one of another name is not MCP's.
		if len(e.data) == 0 || e.name != "" && e.name != "message" {
			continue
		}
		m, err := wire.Decode(e.data)
		if err != nil {
			c.fail(fmt.Errorf("%s: failed to decode event: %v", about(msg), err))
			return "", 0, true
		}
		if req != nil {
			c.learn(req, m)
		}
		if !c.deliver(m) {
			return "", 0, true
		}
		if r, ok := m.(*jsonrpc.Response); ok && req != nil && r.ID == req.ID {
			answered = true
			return "", 0, true
		}
	}
	if lastID == "" && req != nil {
		// The answer will never come: the caller is told so.
		c.deliver(&jsonrpc.Response{ID: req.ID, Error: errors.New("request terminated without response")})
	}
	return lastID, delay, false
}

// finish reads the rest of a stream after its answer, from r, for
// finishWithin at most: then body is closed, which ends the read.
func finish(r *bufio.Reader, body io.Closer) {
	t := time.AfterFunc(finishWithin, func() { body.Close() })
	io.Copy(io.Discard, r)
	t.Stop()
}

// The reconnection of a stream, as go-sdk's: up to maxRetries attempts,
// the first after reconnectDelay and each next one half as long again,
// up to reconnectMax, with as much jitter; or after the delay the server
// asked for.
const (
	maxRetries     = 5
	reconnectDelay = time.Second
	reconnectGrow  = 1.5
	reconnectMax   = 30 * time.Second
)

func backoff(attempt int) time.Duration {
	if attempt == 0 {
		return 0
	}
	d := min(time.Duration(float64(reconnectDelay)*math.Pow(reconnectGrow, float64(attempt-1))), reconnectMax)
	return d + rand.N(d)
}

// connectSSE opens an event stream with a GET, resuming from lastID if
// it is set, and retries a GET that fails. initial says this is the
// standalone stream's first attempt, which does not wait; delay is the
// wait the server asked for, if any.
func (c *Conn) connectSSE(ctx context.Context, lastID string, delay time.Duration, initial bool) (*http.Response, error) {
	attempt := 1
	if initial {
		attempt = 0
	}
	wait := backoff(attempt)
	if delay > 0 {
		wait = delay
	}
	var failed error
	for ; attempt <= maxRetries; attempt++ {
		t := time.NewTimer(wait)
		select {
		case <-c.done:
			t.Stop()
			return nil, errors.New("connection closed by client during reconnect")
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		req, err := c.request(ctx, http.MethodGet, nil, "")
		if err != nil {
			return nil, err
		}
		if lastID != "" {
			req.Header.Set("Last-Event-ID", lastID)
		}
		req.Header["Accept"] = acceptSSE
		resp, err := c.t.Client.Do(req)
		if err != nil {
			failed, wait = err, backoff(attempt+1)
			continue
		}
		return resp, nil
	}
	if failed != nil {
		return nil, fmt.Errorf("connection failed after %d attempts: %w", maxRetries, failed)
	}
	return nil, fmt.Errorf("connection aborted after %d attempts", maxRetries)
}

// listen opens the standalone stream, on which a server of protocol
// 2025-11-25 or earlier sends what is no answer to a request (a listing
// changed, a log message, a question it asks during a call), once the
// session is initialized; protocol 2026-07-28 has none (SEP-2575). It
// returns once the server answered the GET, or ctx ends, as go-sdk opens
// the stream before the session goes on: a server sends on it at once.
func (c *Conn) listen(ctx context.Context) {
	c.mu.Lock()
	open := !c.listening && c.version < standardVersion
	c.listening = true
	c.mu.Unlock()
	if !open {
		return
	}
	answered := make(chan struct{})
	c.streams.Add(1)
	go func() {
		defer c.streams.Done()
		c.standalone(answered)
	}()
	select {
	case <-answered:
	case <-ctx.Done():
	}
}

// standalone reads the standalone stream until Close, answered closed
// once the server answered its GET. A server that offers none (405), or
// answers with something else than a stream, goes without, as go-sdk has
// it.
func (c *Conn) standalone(answered chan<- struct{}) {
	resp, err := c.connectSSE(c.life, "", 0, true)
	close(answered)
	if err != nil {
		if c.life.Err() == nil {
			c.fail(fmt.Errorf("standalone SSE request failed (session ID: %v): %v", c.SessionID(), err))
		}
		return
	}
	switch ct := mediaType(resp.Header.Get("Content-Type")); {
	case resp.StatusCode == http.StatusMethodNotAllowed:
		resp.Body.Close()
		return
	case ct != "text/event-stream":
		c.logger.Warn("the MCP server answered the standalone stream's GET with no event stream", "content_type", ct)
		resp.Body.Close()
		return
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		c.logger.Warn("the MCP server answered the standalone stream's GET with another status than 405", "status", resp.StatusCode)
		resp.Body.Close()
		return
	}
	if err := c.check(nil, resp); err != nil {
		resp.Body.Close()
		c.fail(err)
		return
	}
	c.stream(c.life, nil, nil, resp, false)
}
