package stdio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpbridge/mcpbridge/internal/gather"
	"github.com/mcpbridge/mcpbridge/internal/idscan"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
)

const (
	// readBufferSize is the bufio size for stdout. Typical messages fit,
	// so they are decoded straight from bufio's buffer without a copy.
	readBufferSize = 64 << 10
	// keepBufferCap is the largest buffer kept for the next message written;
	// one huge message should not pin its memory for the life of the
	// session. (A line read is gathered in a gather.Buffer, which keeps as
	// much.)
	keepBufferCap = gather.Keep
)

// frameReader splits a stream into newline-delimited lines, enforcing a
// length limit without ever buffering more than the limit.
type frameReader struct {
	br    *bufio.Reader
	limit int           // bytes per line, newline excluded; <= 0 means none
	buf   gather.Buffer // a line longer than br's buffer
	// owned says the last line is the caller's to keep: one put together
	// past gather.Keep is never used again, and needs no copy of its own.
	owned bool
	// A read cut short by errYield leaves its line part read, for the
	// next call to go on with: its start in buf (partial), or, over the
	// limit, what was seen of it (skip, set while a line is discarded).
	partial bool
	skip    *skipping
}

// skipping is what is known of a line over the limit while the rest of it
// is read and dropped.
type skipping struct {
	sc   idscan.Scanner
	size int64
}

// oversized describes a line that exceeded the limit and was discarded.
type oversized struct {
	size      int64      // bytes in the line, newline excluded
	id        jsonrpc.ID // the message's top-level id, if hasID
	hasID     bool
	isRequest bool // it had a "method": a request from the server
}

func newFrameReader(r io.Reader, limit, bufSize int) *frameReader {
	return &frameReader{br: bufio.NewReaderSize(r, bufSize), limit: limit}
}

// next returns the next line that is not blank, or a description of the
// next line if it is too long. The line is valid until the following call.
// An error of errYield from the reader below loses nothing: the call after
// goes on with the line.
func (r *frameReader) next() (line []byte, over *oversized, err error) {
	for {
		line, over, err = r.readLine()
		if err != nil || over != nil || len(bytes.TrimSpace(line)) > 0 {
			return line, over, err
		}
	}
}

func (r *frameReader) readLine() ([]byte, *oversized, error) {
	if !r.partial {
		r.buf.Reset()
		r.owned = false
	}
	r.partial = false
	if r.skip != nil {
		return r.skipRest()
	}
	for {
		frag, err := r.br.ReadSlice('\n')
		switch {
		case err == nil:
			if r.past(r.buf.Len() + len(frag) - 1) { // the newline aside
				return r.startSkip(frag, true)
			}
			if r.buf.Len() == 0 {
				return frag, nil, nil
			}
			r.buf.Write(frag)
			return r.gathered(), nil, nil
		case err == bufio.ErrBufferFull || err == errYield:
			if r.past(r.buf.Len() + len(frag)) {
				return r.startSkip(frag, false)
			}
			r.buf.Write(frag)
			if err == errYield {
				r.partial = true
				return nil, nil, err
			}
		case r.buf.Len()+len(frag) > 0 && err == io.EOF:
			// A last line without a newline is still a message; the EOF
			// comes again on the next call.
			if r.past(r.buf.Len() + len(frag)) {
				return r.startSkip(frag, true)
			}
			r.buf.Write(frag)
			return r.gathered(), nil, nil
		default:
			return nil, nil, err
		}
	}
}

// past reports whether a line of n bytes is over the limit.
func (r *frameReader) past(n int) bool { return r.limit > 0 && n > r.limit }

// gathered returns the line put together in r.buf, the caller's to keep
// if it is too large for the buffer to be kept.
func (r *frameReader) gathered() []byte {
	if r.buf.Len() > gather.Keep {
		r.owned = true
		return r.buf.Take(nil)
	}
	return r.buf.Bytes()
}

// startSkip begins to discard a line over the limit, read up to and
// including frag (the whole line if final), feeding everything through an
// idscan.Scanner so that the request it answers can still be failed. Only
// bufio's buffer is used.
func (r *frameReader) startSkip(frag []byte, final bool) ([]byte, *oversized, error) {
	r.skip = &skipping{}
	r.buf.Each(r.skip.sc.Feed)
	r.skip.size = int64(r.buf.Len())
	r.buf.Reset()
	if final {
		return nil, r.skipped(frag), nil
	}
	r.skip.sc.Feed(frag)
	r.skip.size += int64(len(frag))
	return r.skipRest()
}

// skipRest reads and drops the rest of the line being discarded.
func (r *frameReader) skipRest() ([]byte, *oversized, error) {
	for {
		frag, err := r.br.ReadSlice('\n')
		switch err {
		case bufio.ErrBufferFull, errYield:
			r.skip.sc.Feed(frag)
			r.skip.size += int64(len(frag))
			if err == errYield {
				return nil, nil, err // skip holds what was seen
			}
		default:
			// On EOF or another error the line is cut short; report what
			// was seen, and the error comes again on the next read.
			return nil, r.skipped(frag), nil
		}
	}
}

// skipped reports the line discarded, whose last fragment is frag.
func (r *frameReader) skipped(frag []byte) *oversized {
	s := r.skip
	r.skip = nil
	s.sc.Feed(frag)
	size := s.size + int64(len(frag))
	if len(frag) > 0 && frag[len(frag)-1] == '\n' {
		size--
	}
	id, hasID, isRequest := s.sc.Result()
	return &oversized{size: size, id: id, hasID: hasID, isRequest: isRequest}
}

var errNoID = errors.New("response without an id")

// decoder turns lines into messages, as go-sdk's jsonrpc.DecodeMessage
// does but for what a line must be (one JSON value, nothing after it),
// without go-sdk's decoder ([wire.Decode]). Nothing decoded aliases a
// line the reader uses again: the message keeps a copy of its own, unless
// the line is the decoder's to keep (owned).
type decoder struct {
	owned bool // the lines decoded are the decoder's to keep (frameReader.owned)
}

// decode parses one JSON-RPC message (not a batch).
func (d *decoder) decode(line []byte) (jsonrpc.Message, error) {
	line = bytes.TrimSpace(line)
	if !rawjson.Valid(line, -1) {
		var v any
		err := json.Unmarshal(line, &v) // which says what is wrong
		if err == nil {
			err = errors.New("not JSON")
		}
		return nil, err
	}
	if !d.owned {
		line = bytes.Clone(line)
	}
	m, err := wire.Decode(line)
	if err != nil {
		return nil, err
	}
	if r, ok := m.(*jsonrpc.Response); ok && !r.ID.IsValid() {
		return nil, errNoID
	}
	return m, nil
}

// wireOut is the encode form of any JSON-RPC message, kept in the Conn and
// reused under its write lock.
type wireOut struct {
	Version string          `json:"jsonrpc"`
	ID      any             `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *jsonrpc.Error  `json:"error,omitempty"`
}

var jsonNull = json.RawMessage("null")

// encoder writes messages as single lines into a reused buffer.
type encoder struct {
	buf  bytes.Buffer
	enc  *json.Encoder
	wire wireOut
	line []byte // a request's line; see encode
}

func newEncoder() *encoder {
	e := &encoder{}
	e.enc = json.NewEncoder(&e.buf)
	// Match go-sdk, which does not escape <, > and & either.
	e.enc.SetEscapeHTML(false)
	return e
}

// encode returns msg as one line ending in '\n'. Params and results are
// compacted, so that an indented payload cannot break the framing with a
// newline of its own, and must be valid JSON.
//
// A request, nearly every message a client writes, is written by hand
// ([wire.Append]), its params as they are: they are checked in one pass,
// and compacted only if they hold a newline. Reflection and json.Encoder's
// compaction of every params cost more than the write of a small call.
func (e *encoder) encode(msg jsonrpc.Message) ([]byte, error) {
	if req, ok := msg.(*jsonrpc.Request); ok {
		return e.request(req)
	}
	if e.buf.Cap() > keepBufferCap {
		e.buf = bytes.Buffer{}
	}
	e.buf.Reset()
	e.wire = wireOut{Version: "2.0"}
	switch m := msg.(type) {
	case *jsonrpc.Response:
		e.wire.ID, e.wire.Result, e.wire.Error = m.ID.Raw(), m.Result, toWireError(m.Error)
		if e.wire.Result == nil && e.wire.Error == nil {
			// A response must carry one of the two; strict servers reject
			// one with neither.
			e.wire.Result = jsonNull
		}
	default:
		return nil, fmt.Errorf("cannot send %T", msg)
	}
	err := e.enc.Encode(&e.wire)
	e.wire = wireOut{} // do not keep the caller's payload alive
	if err != nil {
		return nil, fmt.Errorf("encoding message: %w", err)
	}
	return e.buf.Bytes(), nil
}

// request encodes req as [encoder.encode] does.
func (e *encoder) request(req *jsonrpc.Request) ([]byte, error) {
	params := req.Params
	if len(params) > 0 && !rawjson.Valid(params, maxEncodeDepth) {
		return nil, fmt.Errorf("encoding message: the params of %q are not valid JSON", req.Method)
	}
	if bytes.IndexByte(params, '\n') >= 0 {
		var b bytes.Buffer
		if err := json.Compact(&b, params); err != nil {
			return nil, fmt.Errorf("encoding message: %w", err)
		}
		compact := *req
		compact.Params = b.Bytes()
		req = &compact
	}
	if cap(e.line) > keepBufferCap {
		e.line = nil
	}
	line, err := wire.Append(e.line[:0], req)
	if err != nil {
		return nil, fmt.Errorf("encoding message: %w", err)
	}
	e.line = append(line, '\n')
	return e.line, nil
}

// maxEncodeDepth is the nesting json.Encoder allows the params it writes.
const maxEncodeDepth = 10000

// toWireError converts a handler's error as go-sdk does: a *jsonrpc.Error
// as is, any other error with its text, keeping the code of a wrapped
// *jsonrpc.Error.
func toWireError(err error) *jsonrpc.Error {
	if err == nil {
		return nil
	}
	if w, ok := err.(*jsonrpc.Error); ok {
		return w
	}
	w := &jsonrpc.Error{Message: err.Error()}
	var wrapped *jsonrpc.Error
	if errors.As(err, &wrapped) {
		w.Code = wrapped.Code
	}
	return w
}
