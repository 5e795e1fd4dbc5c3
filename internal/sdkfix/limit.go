package sdkfix

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpbridge/mcpbridge/internal/gather"
	"github.com/mcpbridge/mcpbridge/internal/idscan"
)

// The size limit over HTTP ([HTTPTap.Limit]).
//
// go-sdk bounds neither kind of body a server answers with: it reads a JSON
// body with io.ReadAll, and its streamable transport passes a zero
// MaxEventSize on as "no cap" (contrary to its doc); where it does cap an
// event (MaxEventSize, 16 MiB by default on the legacy SSE transport), one
// event over the cap ends the whole connection. So the tap bounds the
// bodies before go-sdk reads them, and replaces a message over the limit
// with a JSON-RPC error answering the same request: that request fails,
// saying why, and the connection goes on. go-sdk's own cap is to be turned
// off (MaxEventSize -1), as it would end the connection first.

// keepBufferCap is the largest buffer kept for the next message: one huge
// message should not pin its memory for the life of the stream.
const keepBufferCap = 1 << 20

// tooLarge says that a message of size bytes (< 0: unknown) is over limit.
func tooLarge(size int64, limit int) string {
	if size < 0 {
		return fmt.Sprintf("the server's message exceeds the %d-byte size limit", limit)
	}
	return fmt.Sprintf("the server's message of %d bytes exceeds the %d-byte size limit", size, limit)
}

// refusal is the JSON-RPC error answer to request id that takes the place
// of a message of size bytes over the limit.
func (x *HTTPTap) refusal(id jsonrpc.ID, size int64) []byte {
	x.Logger.Warn("failed a request whose answer from the MCP server is over the size limit",
		"server", x.Server, "bytes", size, "limit", x.limit())
	data, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{
		Code: jsonrpc.CodeInternalError, Message: tooLarge(size, x.limit()),
	}})
	return data
}

// requestID returns the JSON-RPC id of the request req carries.
func requestID(req *http.Request) jsonrpc.ID {
	if req.GetBody == nil {
		return jsonrpc.ID{}
	}
	body, err := req.GetBody()
	if err != nil {
		return jsonrpc.ID{}
	}
	defer body.Close()
	var msg struct {
		ID any `json:"id"`
	}
	json.NewDecoder(body).Decode(&msg)
	id, _ := jsonrpc.MakeID(msg.ID)
	return id
}

// boundJSON bounds the JSON body of resp, the answer to the request req
// carries, and shows it to r. A body whose length is known and within the
// limit, which nobody reads along, passes untouched.
func (x *HTTPTap) boundJSON(req *http.Request, resp *http.Response, r reader) {
	n := resp.ContentLength
	switch {
	case x.limit() >= 0 && n > int64(x.limit()):
		resp.Body.Close()
		data := x.refusal(requestID(req), n)
		resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(data)), int64(len(data))
	case r.sink == nil && (x.limit() < 0 || n >= 0):
	default:
		resp.Body = &jsonBody{ReadCloser: resp.Body, x: x, req: req, r: r}
	}
}

// A jsonBody is a JSON body of unknown length, read whole (up to the limit)
// at the first Read, so that one over the limit can be replaced before its
// reader sees a byte.
type jsonBody struct {
	io.ReadCloser
	x    *HTTPTap
	req  *http.Request
	r    reader
	body *bytes.Reader // what the reader reads, once read
}

func (b *jsonBody) Read(p []byte) (int, error) {
	if b.body == nil {
		var body io.Reader = b.ReadCloser
		if b.x.limit() >= 0 {
			body = io.LimitReader(body, int64(b.x.limit())+1)
		}
		data, err := io.ReadAll(body)
		if err != nil {
			return 0, err
		}
		if b.x.limit() >= 0 && len(data) > b.x.limit() {
			data = b.x.refusal(requestID(b.req), -1)
		} else if b.r.sink != nil && b.r.want() {
			// which reads data, as the reader does
			if swap := b.r.sink(data); swap != nil {
				data = swap
			}
		}
		b.body = bytes.NewReader(data)
	}
	return b.body.Read(p)
}

// truncated ends a body that is no message after n bytes.
type truncated struct {
	io.ReadCloser
	n int64
}

func (t *truncated) Read(p []byte) (int, error) {
	if t.n <= 0 {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), t.n)]
	n, err := t.ReadCloser.Read(p)
	t.n -= int64(n)
	return n, err
}

// An eventStream is a server-sent event stream from the server, passed on
// event by event. Each event is held until it ends, so that one over the
// limit can be dropped whole: it is read on without being kept, its
// JSON-RPC id found as it streams by, and an error event answering the
// same request takes its place. An event counts every byte of its lines.
// r is shown each event's data.
type eventStream struct {
	body io.ReadCloser
	x    *HTTPTap
	r    reader
	b    *streamBuffers // from the first Read until the stream's end

	size int64 // bytes of the current event so far
	over bool  // the current event is over the limit
	line lineState
	scan idscan.Scanner // the data of the event over the limit
	err  error          // the body's, once out is drained
	done bool           // the stream ended, and its buffers went back
}

// streamBuffers are an eventStream's buffers, kept for the next stream
// once one ends: a stream costs no buffer of its own.
type streamBuffers struct {
	buf   []byte        // for reading the body
	event gather.Buffer // the current event so far, unless over the limit
	out   bytes.Buffer  // whole events for the reader
}

var streamBufferPool = sync.Pool{New: func() any { return new(streamBuffers) }}

// release gives the stream's buffers back, and ends it.
func (s *eventStream) release() {
	b := s.b
	s.b, s.done = nil, true
	if b == nil || b.out.Cap() > keepBufferCap {
		return // one huge event should not pin its memory in the pool
	}
	b.event.Reset()
	b.out.Reset()
	streamBufferPool.Put(b)
}

// lineState follows the current line of an event.
type lineState struct {
	n     int     // bytes of the line so far, its end excluded
	head  [5]byte // its first bytes, enough to tell a data line
	data  bool    // it is a data line
	datas int     // data lines the event had before this one
}

func (s *eventStream) Read(p []byte) (int, error) {
	if s.done {
		return 0, s.err
	}
	if s.b == nil {
		s.b = streamBufferPool.Get().(*streamBuffers)
	}
	b := s.b
	for b.out.Len() == 0 {
		if b.out.Cap() > keepBufferCap {
			b.out = bytes.Buffer{}
		}
		if s.err != nil {
			s.release()
			return 0, s.err
		}
		if want := min(max(len(p), 4<<10), 32<<10); len(b.buf) < want {
			// As large as the reader reads, within bounds: a reader of
			// small reads needs no more.
			b.buf = make([]byte, want)
		}
		n, err := s.body.Read(b.buf)
		s.take(b.buf[:n])
		if err != nil {
			// An event the stream's end cuts short goes on as it is, for
			// the reader to judge.
			b.out.Write(b.event.Bytes())
			b.event.Reset()
			s.err = err
		}
	}
	return b.out.Read(p)
}

func (s *eventStream) Close() error { return s.body.Close() }

// take takes in the next bytes of the stream.
func (s *eventStream) take(p []byte) {
	for len(p) > 0 {
		seg, ended := p, false
		if i := bytes.IndexByte(p, '\n'); i >= 0 {
			seg, ended = p[:i+1], true
		}
		p = p[len(seg):]
		if !s.over {
			s.b.event.Write(seg)
			if s.x.limit() >= 0 && s.size+int64(len(seg)) > int64(s.x.limit()) {
				s.overflow()
				continue
			}
		}
		s.size += int64(len(seg))
		if ended {
			seg = seg[:len(seg)-1]
		}
		s.lineBytes(seg)
		if ended {
			s.endLine()
		}
	}
}

// overflow turns the current event, over the limit with its last bytes,
// into one being dropped: what was kept of it is scanned instead.
func (s *eventStream) overflow() {
	s.over, s.size, s.line = true, 0, lineState{}
	// Not written while over the limit: scanned where it is, then let go.
	s.b.event.Each(s.take)
	s.b.event.Reset()
}

func (s *eventStream) lineBytes(b []byte) {
	l := &s.line
	if l.n < len(l.head) {
		k := copy(l.head[l.n:], b)
		l.n += k
		b = b[k:]
		if l.n == len(l.head) && string(l.head[:]) == "data:" {
			l.data = true
			if s.over && l.datas > 0 {
				s.scan.Feed([]byte{'\n'}) // data lines join with a newline
			}
		}
	}
	l.n += len(b)
	if s.over && l.data {
		s.scan.Feed(b)
	}
}

func (s *eventStream) endLine() {
	l := &s.line
	blank := l.n == 0 || l.n == 1 && l.head[0] == '\r'
	datas := l.datas
	if l.data {
		datas++
	}
	*l = lineState{datas: datas}
	if blank {
		s.endEvent()
	}
}

// endEvent passes the event on, or what takes the place of one over the
// limit.
func (s *eventStream) endEvent() {
	switch {
	case s.over:
		id, ok, isRequest := s.scan.Result()
		if !ok || isRequest {
			// A notification, or a request from the server, which can only
			// be answered on another request: dropped.
			s.x.Logger.Warn("dropped a message from the MCP server over the size limit",
				"server", s.x.Server, "bytes", s.size, "limit", s.x.limit())
			break
		}
		s.b.out.WriteString("event: message\ndata: ")
		s.b.out.Write(s.x.refusal(id, s.size))
		s.b.out.WriteString("\n\n")
	default:
		if swap := s.show(); swap != nil {
			s.b.out.Write(swapData(s.b.event.Bytes(), swap))
		} else if s.b.out.Len() == 0 {
			// Handed over whole, not copied: out's buffer, empty, is kept
			// for a next event.
			s.b.out = *bytes.NewBuffer(s.b.event.Take(s.b.out.AvailableBuffer()))
		} else {
			s.b.out.Write(s.b.event.Bytes())
		}
	}
	s.b.event.Reset()
	s.size, s.over, s.line, s.scan = 0, false, lineState{}, idscan.Scanner{}
}

// show gives the data of the event to the reader along, if it wants it,
// in a slice of its own, and returns the data go-sdk is to read in its
// place, nil for its own.
func (s *eventStream) show() []byte {
	if s.r.sink == nil || !s.r.want() {
		return nil
	}
	var data []byte
	n := 0
	for _, line := range bytes.Split(s.b.event.Bytes(), []byte("\n")) {
		if v, ok := bytes.CutPrefix(bytes.TrimSuffix(line, []byte("\r")), []byte("data:")); ok {
			if n++; n > 1 {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(v, []byte(" "))...)
		}
	}
	if n > 0 {
		return s.r.sink(data)
	}
	return nil
}

// swapData is the event with data in place of its data lines: its other
// lines (an id, which go-sdk resumes a stream from) as they are.
func swapData(event, data []byte) []byte {
	out := make([]byte, 0, 64+len(data))
	for line := range bytes.Lines(event) {
		if bytes.HasPrefix(line, []byte("data:")) || len(bytes.TrimRight(line, "\r\n")) == 0 {
			continue
		}
		out = append(out, line...)
	}
	out = append(out, "data: "...)
	out = append(out, data...)
	return append(out, "\n\n"...)
}
