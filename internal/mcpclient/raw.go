package mcpclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/ctxkey"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// ErrNotRaw is the error of [Provider.CallToolRaw] for a call it cannot make
// without decoding the result; nothing was sent, and the caller makes the
// call with [Provider.CallToolResult] instead.
var ErrNotRaw = errors.New("mcptool: this call cannot be made raw")

// CallToolRaw calls a tool as [Provider.CallToolResult] does (the same
// timeout, progress, telemetry, output schema check, and resend of a call
// whose exchange was lost, for a tool annotated read-only or idempotent),
// but returns the server's result as the server wrote it, never decoded
// into go-sdk's types: for a host that relays it to an MCP client
// unchanged (package gateway), the JSON of the result is the server's,
// byte for byte.
//
// Only a server of protocol 2026-07-28 or later reached over streamable
// HTTP without OAuth is called raw; for any other, and for a tool whose
// arguments go in headers too (x-mcp-header), or when the call's content
// is recorded on its span ([WithCallContent]), it returns [ErrNotRaw]
// before sending anything. What the server answers in place of a result
// comes back decoded, as CallToolResult would return it, with a nil raw
// result: a task (followed to its end), an input_required result (handed
// whole, for the caller to answer in its next call: the caller can be
// asked only there), a result the protocol does not allow. A server's own
// request during the call is not answered: a server of 2026-07-28 asks in
// its result.
//
// The call returns once it has the answer; what of the stream follows the
// answer is read apart, within a bound, so that its connection is used
// again, and [Provider.Close] waits for that.
func (p *Provider) CallToolRaw(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, *mcp.CallToolResult, error) {
	s, target, body, err := p.hostCall(name, args)
	if err != nil {
		return nil, nil, err
	}
	if !p.rawable(s, target) {
		return nil, nil, ErrNotRaw
	}
	ctx, out := withRawCall(ctx)
	res, err := p.call(ctx, s, target, body)
	switch {
	case err != nil:
		return nil, nil, err
	case res == out.res:
		return out.raw, nil, nil
	}
	return nil, res, nil
}

// rawable reports whether a call of the tool name on s can be made raw.
func (p *Provider) rawable(s *session, name string) bool {
	if s.raw == nil || s.init.ProtocolVersion < "2026-07-28" || p.tel != nil && p.tel.content {
		return false
	}
	lt := s.catalog().listed[name]
	return lt == nil || !bytes.Contains(lt.def.InputSchema, []byte("x-mcp-header"))
}

// A rawCall rides in the context of a call made raw: the sending
// middleware of the session ([rawPoster]) sends it and keeps the server's
// result here, and hands go-sdk res in its place.
type rawCall struct {
	raw json.RawMessage
	res *mcp.CallToolResult
}

var rawCallKey = ctxkey.New[*rawCall]("mcptool raw call")

func withRawCall(ctx context.Context) (context.Context, *rawCall) {
	c := new(rawCall)
	return rawCallKey.With(ctx, c), c
}

func rawCallOf(ctx context.Context) *rawCall { return rawCallKey.Value(ctx) }

// A rawPoster sends the tools/call of a raw call over streamable HTTP
// itself, as go-sdk's transport would (the same HTTP client, hence the
// same headers, size bounds and reading along, and the same MCP headers),
// and reads the answer without decoding the result: go-sdk decodes every
// message with a new decoder of tens of kilobytes and a result whole into
// its types, which a relay re-encodes.
type rawPoster struct {
	p        *Provider
	client   *http.Client
	endpoint string
	ids      atomic.Int64
}

// rawSending returns the sending middleware of a session over t that
// makes the calls whose context asks raw, or nil for a transport it cannot
// speak for (not streamable HTTP, or with OAuth, whose token go-sdk adds).
func (p *Provider) rawSending(t mcp.Transport) *rawPoster {
	st, ok := t.(*mcp.StreamableClientTransport)
	if !ok || st.OAuthHandler != nil || st.HTTPClient == nil {
		return nil
	}
	return &rawPoster{p: p, client: st.HTTPClient, endpoint: st.Endpoint}
}

func (r *rawPoster) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		out := rawCallOf(ctx)
		params, ok := req.GetParams().(*mcp.CallToolParams)
		cs, isClient := req.GetSession().(*mcp.ClientSession)
		if out == nil || method != "tools/call" || !ok || !isClient {
			return next(ctx, method, req)
		}
		return r.call(ctx, cs, params, out)
	}
}

// call sends params, and returns what go-sdk's caller is to see: a
// stand-in for the result kept in out, an empty result where the raw one
// must be judged (a task, a shape the protocol does not allow: the call's
// [sdkfix.Catch] holds it), or [ErrInputRequired].
func (r *rawPoster) call(ctx context.Context, cs *mcp.ClientSession, params *mcp.CallToolParams, out *rawCall) (mcp.Result, error) {
	version := cs.InitializeResult().ProtocolVersion
	id := json.RawMessage(strconv.Quote("mcpbridge-raw-" + strconv.FormatInt(r.ids.Add(1), 10)))
	body, err := json.Marshal(struct {
		JSONRPC string              `json:"jsonrpc"`
		ID      json.RawMessage     `json:"id"`
		Method  string              `json:"method"`
		Params  *mcp.CallToolParams `json:"params"`
	}{"2.0", id, "tools/call", params})
	if err != nil {
		return nil, err
	}
	raw, err := r.post(ctx, version, params.Name, id, body)
	if err != nil {
		if ctx.Err() != nil {
			r.cancel(ctx, version, id)
		}
		return nil, err
	}
	// The members read where they are written: a result with a member
	// name written with an escape, or a resultType not a string, is judged
	// decoded.
	var resultType, isError, content, structured []byte
	ok := rawjson.Members(raw, func(k, v []byte) bool {
		switch string(k) {
		case "resultType":
			resultType = v
		case "isError":
			isError = v
		case "content":
			content = v
		case "structuredContent":
			structured = v
		}
		return true
	})
	kind, isString := rawjson.String(resultType)
	ok = ok && (isString || resultType == nil || string(resultType) == "null")
	switch {
	case ok && kind == "input_required":
		return nil, ErrInputRequired
	case !ok || kind == "task" || !bytes.HasPrefix(content, []byte("[")):
		return &mcp.CallToolResult{}, nil
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{}}}
	switch v := string(isError); v {
	case "", "null", "false":
	case "true":
		res.IsError = true
	default:
		return nil, &ProtocolError{Server: r.p.name, Op: operation{"tools/call", params.Name}.String(), Err: fmt.Errorf("isError is %s, not a boolean", v)}
	}
	if len(structured) > 0 && string(structured) != "null" {
		res.StructuredContent = json.RawMessage(structured)
	}
	out.raw, out.res = raw, res
	return res, nil
}

// post sends one JSON-RPC request and returns the result of its answer,
// reading the server's notifications on the way: progress on the call, its
// log messages.
func (r *rawPoster) post(ctx context.Context, version, name string, id, body []byte) (json.RawMessage, error) {
	// The request ends with the call until the answer is read, and its
	// stream is then read to its end apart ([rawPoster.finish]), which the
	// call's context, ended as the call returns, would cut short.
	rctx, end := context.WithCancelCause(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() { end(context.Cause(ctx)) })
	req, err := r.request(rctx, version, body)
	if err != nil {
		stop()
		end(nil)
		return nil, err
	}
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", name)
	resp, err := r.client.Do(req)
	if err != nil {
		stop()
		end(nil)
		return nil, err
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct == "text/event-stream" && resp.StatusCode == http.StatusOK {
		res, err := r.events(ctx, resp.Body, id)
		if stop() && err == nil {
			r.finish(resp.Body, end)
			return res, nil
		}
		resp.Body.Close()
		end(nil)
		return res, err
	}
	defer func() {
		resp.Body.Close()
		stop()
		end(nil)
	}()
	if ct == "application/json" {
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, err
		}
		res, ok, err := r.message(ctx, data, id)
		if ok || err != nil {
			return res, err
		}
	}
	return nil, fmt.Errorf("calling %q: %s", "tools/call", resp.Status)
}

// request is a POST of body to the server.
func (r *rawPoster) request(ctx context.Context, version string, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", version)
	return req, nil
}

// The bounds on reading a stream on past its answer ([rawPoster.finish]).
const (
	finishWithin = 100 * time.Millisecond
	finishBytes  = 64 << 10
)

// finish reads what of the stream body follows the answer, to its end, and
// then ends its request, apart from the call, which has its answer: Go's
// transport closes a connection whose response body is closed before its
// end, and a server ends the stream only after the answer (go-sdk's, once
// it has closed the request's session). The provider's Close waits for it.
// A server that sends more than finishBytes after the answer, or does not
// end the stream within finishWithin, loses its connection; nothing after
// the answer is read for itself (go-sdk's client drops it too).
func (r *rawPoster) finish(body io.ReadCloser, end context.CancelCauseFunc) {
	read := func() {
		cut := time.AfterFunc(finishWithin, func() { body.Close() })
		_, _ = io.Copy(io.Discard, io.LimitReader(body, finishBytes))
		cut.Stop()
		body.Close()
		end(nil)
	}
	if !r.p.finishing.start(read) {
		body.Close()
		end(nil)
	}
}

// A finishing is the goroutines of a provider reading streams to their end
// ([rawPoster.finish]).
type finishing struct {
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// start runs read in a goroutine of its own, unless the provider is closed.
func (f *finishing) start(read func()) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	f.wg.Go(read)
	return true
}

// close waits for the reads started, and starts no more until open.
func (f *finishing) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	f.wg.Wait()
}

// open lets reads start again, for a provider connected after Close.
func (f *finishing) open() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = false
}

// events reads an event stream until the answer to id.
func (r *rawPoster) events(ctx context.Context, body io.Reader, id []byte) (json.RawMessage, error) {
	br := bufio.NewReader(body)
	var data []byte
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A long data line: read it whole. line is the reader's
			// buffer, which the next read overwrites: copied first. The
			// client's transport bounds an event ([sdkfix.HTTPTap]).
			head := append([]byte(nil), line...)
			rest, rerr := br.ReadBytes('\n')
			line, err = append(head, rest...), rerr
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0 && len(data) > 0:
			res, ok, merr := r.message(ctx, data, id)
			if ok || merr != nil {
				return res, merr
			}
			data = data[:0]
		case bytes.HasPrefix(line, []byte("data:")):
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(line[len("data:"):], []byte(" "))...)
		}
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("calling %q: the stream ended without the answer: %w", "tools/call", err)
		}
	}
}

// message reads one JSON-RPC message of the answer: the response to id
// (ok), or a notification, passed on.
func (r *rawPoster) message(ctx context.Context, data, id []byte) (json.RawMessage, bool, error) {
	m, err := readMessage(data)
	if err != nil {
		return nil, false, fmt.Errorf("calling %q: %w", "tools/call", err)
	}
	switch {
	case m.Method != "":
		r.notice(ctx, m.Method, m.Params)
		return nil, false, nil
	case !bytes.Equal(m.ID, id):
		return nil, false, nil
	case m.Error != nil:
		return nil, true, fmt.Errorf("calling %q: %w", "tools/call", m.Error)
	case m.Result == nil:
		return nil, true, fmt.Errorf("calling %q: an answer with neither result nor error", "tools/call")
	}
	return m.Result, true, nil
}

// A wireMessage is a JSON-RPC message on a raw call's stream.
type wireMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc.Error  `json:"error"`
}

// readMessage reads the message data, its members where they are written
// (a result is passed on as it is, not copied) and only an error decoded;
// one it cannot read so (a member name written with an escape, a method
// not a string, anything not valid) it decodes whole.
func readMessage(data []byte) (wireMessage, error) {
	var m wireMessage
	var method, wireErr []byte
	if json.Valid(data) && rawjson.Members(data, func(k, v []byte) bool {
		switch string(k) {
		case "id":
			m.ID = v
		case "method":
			method = v
		case "params":
			m.Params = v
		case "result":
			m.Result = v
		case "error":
			wireErr = v
		}
		return true
	}) {
		var isString bool
		if m.Method, isString = rawjson.String(method); isString || method == nil {
			if wireErr == nil || string(wireErr) == "null" {
				return m, nil
			}
			if m.Error = new(jsonrpc.Error); json.Unmarshal(wireErr, m.Error) == nil {
				return m, nil
			}
		}
	}
	m = wireMessage{}
	err := json.Unmarshal(data, &m)
	return m, err
}

// notice passes on a notification the server sent on the call's stream as
// go-sdk's client would: progress, and log messages. A request of the
// server's own is not answered (see [Provider.CallToolRaw]).
func (r *rawPoster) notice(ctx context.Context, method string, params json.RawMessage) {
	switch method {
	case "notifications/progress":
		var p mcp.ProgressNotificationParams
		if json.Unmarshal(params, &p) == nil {
			r.p.calls.progressed(ctx, &mcp.ProgressNotificationClientRequest{Params: &p})
		}
	case "notifications/message":
		var p mcp.LoggingMessageParams
		if log := r.p.cfg.notices.Log; log != nil && json.Unmarshal(params, &p) == nil {
			log(ctx, &p)
		}
	default:
		r.p.cfg.logger.DebugContext(ctx, "a message on a raw call's stream is not answered", "server", r.p.name, "method", method)
	}
}

// cancel tells the server that the call id is cancelled, within a second,
// as go-sdk does for a call whose context ended.
func (r *rawPoster) cancel(ctx context.Context, version string, id json.RawMessage) {
	why := context.Cause(ctx)
	ctx, stop := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer stop()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled",
		"params": map[string]any{"requestId": id, "reason": why.Error()}})
	req, err := r.request(ctx, version, body)
	if err != nil {
		return
	}
	req.Header.Set("Mcp-Method", "notifications/cancelled")
	if resp, err := r.client.Do(req); err == nil {
		// What the server answers a notification (202) says nothing.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<10))
		resp.Body.Close()
	}
}
