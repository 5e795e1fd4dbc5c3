package gateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// maxBody is the most bytes one request's body may hold: go-sdk's bound,
// which its handler applies to what reaches it.
const maxBody = mcp.DefaultMaxRequestBodyBytes

// A budget counts bytes the gateway holds for its clients, in all and by
// client, within the bounds total and perClient (0 for none): request
// bodies read and not yet answered ([Limits.RequestBytes] and
// RequestBytesPerClient), and answers not yet taken by their client
// ([Limits.ResultBytes] and ResultBytesPerClient, results.go). what says
// what is held, and bounds names the two fields, in a refusal.
type budget struct {
	total, perClient int64
	what             string    // "requests being read or served"
	bounds           [2]string // the fields of total and perClient

	mu       sync.Mutex
	held     int64
	byClient map[string]int64
}

// requestBudget is the budget of request bodies of l.
func requestBudget(l Limits) *budget {
	return &budget{total: l.RequestBytes, perClient: l.RequestBytesPerClient,
		what: "requests being read or served", bounds: [2]string{"RequestBytes", "RequestBytesPerClient"}}
}

// take counts n more bytes of client's, or refuses them, saying which
// bound they would pass, with the HTTP status to answer.
func (b *budget) take(client string, n int64) *refusal {
	b.mu.Lock()
	defer b.mu.Unlock()
	if f := b.fits(client, n); f != nil {
		return f
	}
	b.addLocked(client, n)
	return nil
}

// fits refuses n more bytes of client's that would pass a bound; b.mu is
// held.
func (b *budget) fits(client string, n int64) *refusal {
	mine := b.byClient[client]
	switch {
	case b.perClient > 0 && mine+n > b.perClient:
		return &refusal{status: http.StatusTooManyRequests, retry: true, msg: fmt.Sprintf(
			"%d bytes of %s for %s: %d more would pass the bound (%s, %d)", mine, b.what, who(client), n, b.bounds[1], b.perClient)}
	case b.total > 0 && b.held+n > b.total:
		return &refusal{status: http.StatusServiceUnavailable, retry: true, msg: fmt.Sprintf(
			"%d bytes of %s held by the gateway: %d more would pass the bound (%s, %d)", b.held, b.what, n, b.bounds[0], b.total)}
	}
	return nil
}

// add counts n more bytes of client's, whatever the bounds.
func (b *budget) add(client string, n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.addLocked(client, n)
}

func (b *budget) addLocked(client string, n int64) {
	if b.byClient == nil {
		b.byClient = map[string]int64{}
	}
	b.held += n
	if b.byClient[client] += n; b.byClient[client] == 0 {
		delete(b.byClient, client)
	}
}

// give returns n bytes of client's.
func (b *budget) give(client string, n int64) { b.add(client, -n) }

// who names client in a refusal.
func who(client string) string {
	if client == "" {
		return "clients without a token"
	}
	return fmt.Sprintf("client %q", client)
}

// A refusal is a request the gateway answers itself, before go-sdk reads
// it: an HTTP status, and a JSON-RPC error with the request's id, when it
// is known, that says why.
type refusal struct {
	status int
	id     json.RawMessage // nil when the body was not read
	code   int64           // jsonrpc.CodeInvalidRequest when 0
	msg    string
	retry  bool // the client may retry in a second (Retry-After)
	close  bool // the connection is closed after the answer
}

// Error is the refusal's message, as the logs and the audit record say it.
func (f *refusal) Error() string { return f.msg }

// write answers r's request with the refusal, as a JSON-RPC error response
// whose body every client reads: go-sdk's client hands the error of a 4xx
// body to the caller (a 429 or 503 it reads as its status text, which says
// as much).
func (f *refusal) write(w http.ResponseWriter) {
	id := f.id
	if id == nil {
		id = json.RawMessage("null")
	}
	code := f.code
	if code == 0 {
		code = jsonrpc.CodeInvalidRequest
	}
	body, _ := json.Marshal(struct {
		Version string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", id, &jsonrpc.Error{Code: code, Message: f.msg}})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if f.retry {
		h.Set("Retry-After", "1")
	}
	if f.close {
		h.Set("Connection", "close")
	}
	w.WriteHeader(f.status)
	_, _ = w.Write(body)
}

// readBody reads r's body, the first thing the gateway does with a POST,
// within the bounds: at most maxBody bytes, arriving within
// [Limits.BodyRead], each byte counted against client's budget as it
// arrives. It returns the body and the bytes counted, which the caller
// gives back once the request is answered, or the refusal to answer.
//
// The buffer grows with what arrives, not with the length the client
// declares: a client that declares megabytes and sends a byte now and then
// holds a small buffer, until the deadline cuts it off. The deadline is set
// on the connection through the response writer, so that a server that
// serves [Gateway.Handler] gets it without a ReadTimeout, which would end
// every event stream too; it is lifted once the body is read.
func (g *Gateway) readBody(w http.ResponseWriter, r *http.Request, client string) ([]byte, int64, *refusal) {
	if d := g.lim.BodyRead; d > 0 {
		rc := http.NewResponseController(w)
		// A writer that cannot set deadlines (a recorder) has no
		// connection to hold.
		if rc.SetReadDeadline(time.Now().Add(d)) == nil {
			defer rc.SetReadDeadline(time.Time{})
		}
	}
	size := int64(512)
	if n := r.ContentLength; n >= 0 {
		size = min(n, 64<<10) + 1 // room to see the end without growing
	}
	if f := g.bytes.take(client, size); f != nil {
		return nil, 0, f
	}
	held := size
	body := make([]byte, 0, size)
	in := io.LimitedReader{R: r.Body, N: maxBody + 1}
	for {
		if len(body) == cap(body) {
			// Twice the size, within what the client declared and the
			// bound; made here, so that the size counted is the size held.
			size := min(2*int64(cap(body)), maxBody+1)
			if n := r.ContentLength; n >= int64(len(body)) {
				size = min(size, n+1)
			}
			size = max(size, int64(cap(body))+512)
			if f := g.bytes.take(client, size-int64(cap(body))); f != nil {
				g.bytes.give(client, held)
				return nil, 0, f
			}
			held += size - int64(cap(body))
			body = append(make([]byte, 0, size), body...)
		}
		n, err := in.Read(body[len(body):cap(body)])
		body = body[:len(body)+n]
		switch {
		case err == io.EOF && len(body) > maxBody:
			g.bytes.give(client, held)
			return nil, 0, &refusal{status: http.StatusRequestEntityTooLarge, close: true,
				msg: fmt.Sprintf("request body exceeds %d bytes", maxBody)}
		case err == io.EOF:
			return body, held, nil
		case err != nil:
			g.bytes.give(client, held)
			f := &refusal{status: http.StatusBadRequest, close: true, msg: "failed to read body: " + err.Error()}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				f.status = http.StatusRequestTimeout
				f.msg = fmt.Sprintf("the request's body did not arrive within %v (the gateway's bound BodyRead)", g.lim.BodyRead)
			}
			return nil, 0, f
		}
	}
}

// A message is what the gateway reads of a request's body before anything
// decodes it: the JSON-RPC requests it holds (one, or those of a batch),
// each with its id as written and its method.
type message struct {
	calls []call
	batch bool
}

// A call is one JSON-RPC request of a message, notifications aside.
type call struct {
	id     json.RawMessage
	method string
}

// readMessage reads what the gateway needs of body (its requests' ids and
// methods), where they are written, without decoding it, after checking
// that body nests no deeper than [Limits.RequestDepth] and holds no more
// than RequestValues values, which it refuses. A body that is not a
// JSON-RPC message reads as one without requests: go-sdk answers it.
func (g *Gateway) readMessage(body []byte) (message, *refusal) {
	var m message
	read := func(v []byte) bool {
		var c call
		var method []byte
		rawjson.Members(v, func(k, v []byte) bool {
			switch string(k) {
			case "id":
				c.id = v
			case "method":
				method = v
			}
			return true
		})
		if c.id != nil && method != nil {
			c.method, _ = rawjson.String(method)
			m.calls = append(m.calls, c)
		}
		return true
	}
	if m.batch = rawjson.Elements(body, read); !m.batch {
		// Not an array, or not one whose elements can be told apart:
		// what the elements gave is dropped.
		m.calls = m.calls[:0]
		read(body)
	}
	depth, values := rawjson.Shape(body)
	var why string
	switch {
	case g.lim.RequestDepth > 0 && depth > g.lim.RequestDepth:
		why = fmt.Sprintf("nests %d deep, past the gateway's bound (RequestDepth, %d)", depth, g.lim.RequestDepth)
	case g.lim.RequestValues > 0 && values > g.lim.RequestValues:
		why = fmt.Sprintf("holds %d JSON values, past the gateway's bound (RequestValues, %d)", values, g.lim.RequestValues)
	default:
		return m, nil
	}
	f := &refusal{status: http.StatusBadRequest, msg: "the request " + why}
	if len(m.calls) == 1 && !m.batch {
		f.id = m.calls[0].id
	}
	return m, f
}
