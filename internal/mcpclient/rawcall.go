package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// A tools/call goes past go-sdk's session where the connection allows it
// (sdkfix.Caller: stdio, streamable HTTP, go-sdk's in-memory and io
// transports): it is encoded here, written by the connection, and its
// answer handed back by the goroutine that read it. go-sdk's generic
// request path (its middleware, a reflective encoding of the params, its
// bookkeeping of calls in flight, a second goroutine passing the answer
// on, a decoding of the result with a decoder of 32 KB) was most of what a
// call cost the client, and the answer is judged from the raw result
// anyway. What go-sdk did on the way is done here: the _meta of protocol
// 2026-07-28 (its version, the client and its capabilities), the log level
// asked for, the telemetry of the request (the same middleware), the
// notifications/cancelled of a call given up. A result that asks the host
// for input (2026-07-28's multi round trip) is the exception: the call is
// sent again through go-sdk, whose checks of an elicitation's form and
// answer, and whose rounds, the host's handlers rely on.

// cancelNotice bounds the notifications/cancelled of a call given up, as
// go-sdk's: written apart from the caller, which does not wait for it.
const cancelNotice = 5 * time.Second

// A rawSend is one tools/call sent past go-sdk: what it is sent with, and
// its outcome, in one allocation.
type rawSend struct {
	p      *Provider
	s      *session
	name   string
	asTask bool

	req  mcp.ClientRequest[*mcp.CallToolParams]
	msg  jsonrpc.Request
	raw  rawResult
	id   [32]byte
	res  *mcp.CallToolResult
	task *wireTask
}

// send sends params, asking for a task if c.asTask, through the sending
// middleware of telemetry and notices, as go-sdk would, and hands the
// result, as the server wrote it, to c.received, whose error is the call's.
func (c *rawSend) send(ctx context.Context, params *mcp.CallToolParams) error {
	p, s := c.p, c.s
	if s.init.ProtocolVersion >= "2026-07-28" {
		meta := params.GetMeta()
		if meta == nil {
			meta = mcp.Meta{}
			params.SetMeta(meta)
		}
		if _, ok := meta[mcp.MetaKeyProtocolVersion]; !ok {
			meta[mcp.MetaKeyProtocolVersion] = s.init.ProtocolVersion
		}
		// The client and its capabilities are written from s.
	}
	h := p.cfg.notices.level(c.exchange)
	if p.tel != nil {
		h = p.tel.sending(h)
	}
	c.req = mcp.ClientRequest[*mcp.CallToolParams]{Session: s.cs, Params: params}
	_, err := h(ctx, "tools/call", &c.req)
	return err
}

// exchange is the innermost of send's handlers: it writes the request and
// awaits its answer.
func (c *rawSend) exchange(ctx context.Context, _ string, req mcp.Request) (mcp.Result, error) {
	s := c.s
	data, err := encodeCall(s, req.GetParams().(*mcp.CallToolParams), c.asTask)
	if err != nil {
		return nil, err // nothing was sent
	}
	id, _ := jsonrpc.MakeID(string(strconv.AppendInt(append(c.id[:0], callPrefix...), s.sent.Add(1), 10))) // a string: no error
	c.msg = jsonrpc.Request{ID: id, Method: "tools/call", Params: data}
	resp, err := s.caller.Call(ctx, &c.msg)
	switch {
	case err != nil && ctx.Err() != nil:
		c.p.cancelled(ctx, s, id)
		return nil, ctx.Err()
	case err != nil:
		return nil, fmt.Errorf("calling %q: %w", "tools/call", err)
	case resp.Error != nil:
		return nil, fmt.Errorf("calling %q: %w", "tools/call", resp.Error)
	}
	// What the telemetry records of a tool's result, the call's frame
	// ends it with (callFrame.endSpan).
	c.raw.raw = resp.Result
	return &c.raw, c.received(ctx, resp.Result)
}

// callPrefix begins the ID of a call sent past go-sdk, whose own IDs are
// numbers.
const callPrefix = "mcpbridge-call-"

// cancelled tells the server that the caller gave up the call id, as
// go-sdk does: off the caller's path, within cancelNotice.
func (p *Provider) cancelled(ctx context.Context, s *session, id jsonrpc.ID) {
	params, err := json.Marshal(&mcp.CancelledParams{Reason: ctx.Err().Error(), RequestID: id.Raw()})
	if err != nil {
		return
	}
	go func() {
		nctx, stop := context.WithTimeout(context.WithoutCancel(ctx), cancelNotice)
		defer stop()
		_ = s.caller.Write(nctx, &jsonrpc.Request{Method: "notifications/cancelled", Params: params})
	}()
}

// errInvalidArguments is the failure of a call whose arguments, given as
// JSON, are not.
var errInvalidArguments = errors.New("the arguments are not valid JSON")

// encodeCall encodes the params of a tools/call, asking for a task if
// asTask: the arguments as they are (checked, not reencoded), the rest as
// go-sdk would write it, but for the client's members of _meta absent
// from params, which are written from s ([session.callMeta]).
func encodeCall(s *session, params *mcp.CallToolParams, asTask bool) (json.RawMessage, error) {
	args := []byte("{}")
	switch a := params.Arguments.(type) {
	case nil:
	case *json.RawMessage:
		args = *a
	case json.RawMessage:
		args = a
	default:
		var err error
		if args, err = json.Marshal(a); err != nil {
			return nil, err
		}
	}
	if !rawjson.Valid(args, -1) {
		return nil, errInvalidArguments
	}
	data := make([]byte, 0, len(args)+len(params.Name)+len(s.info)+len(s.caps)+256)
	data = append(data, '{')
	var err error
	if data, err = appendMeta(data, s, params.Meta); err != nil {
		return nil, err
	}
	data = appendString(append(data, `"name":`...), params.Name)
	data = append(append(data, `,"arguments":`...), args...)
	if len(params.InputResponses) > 0 {
		responses, err := json.Marshal(params.InputResponses)
		if err != nil {
			return nil, err
		}
		data = append(append(data, `,"inputResponses":`...), responses...)
	}
	if params.RequestState != "" {
		data = appendString(append(data, `,"requestState":`...), params.RequestState)
	}
	if asTask {
		data = append(data, `,"task":{}`...)
	}
	return append(data, '}'), nil
}

// appendMeta appends the member _meta of a call, and a comma, if it has
// one: meta's members in the order of their keys, and the client's
// members from s where meta has none of its own. Only what varies from
// call to call (the progress token, a trace's context) is encoded each
// time.
func appendMeta(data []byte, s *session, meta mcp.Meta) ([]byte, error) {
	_, hasInfo := meta[mcp.MetaKeyClientInfo]
	_, hasCaps := meta[mcp.MetaKeyClientCapabilities]
	info, caps := s.info, s.caps
	if hasInfo {
		info = nil
	}
	if hasCaps {
		caps = nil
	}
	if len(meta) == 0 && info == nil && caps == nil {
		return data, nil
	}
	var held [8]string
	keys := held[:0]
	for k := range meta {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	data = append(data, `"_meta":{`...)
	first := true
	member := func(raw []byte) {
		if raw == nil {
			return
		}
		if !first {
			data = append(data, ',')
		}
		data, first = append(data, raw...), false
	}
	member(caps)
	member(info)
	for _, k := range keys {
		if !first {
			data = append(data, ',')
		}
		first = false
		data = append(appendString(data, k), ':')
		var err error
		if data, err = appendValue(data, meta[k]); err != nil {
			return nil, fmt.Errorf("_meta %q: %w", k, err)
		}
	}
	return append(data, "},"...), nil
}

// appendString appends s as a JSON string.
func appendString(data []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			quoted, _ := json.Marshal(s) // a string always encodes
			return append(data, quoted...)
		}
	}
	return append(append(append(data, '"'), s...), '"')
}

// appendValue appends v as JSON: a string or an integer (a progress token)
// without encoding/json.
func appendValue(data []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case string:
		return appendString(data, v), nil
	case int64:
		return strconv.AppendInt(data, v, 10), nil
	case int:
		return strconv.AppendInt(data, int64(v), 10), nil
	}
	raw, err := json.Marshal(v)
	return append(data, raw...), err
}

// callMeta sets the members of _meta a call of s writes for the client,
// where protocol 2026-07-28 asks every request for them (go-sdk's
// injectRequestMeta): who it is and its capabilities, encoded once.
func (p *Provider) callMeta(s *session) {
	if s.init.ProtocolVersion < "2026-07-28" {
		return
	}
	member := func(key string, v any) []byte {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil
		}
		return append(append(appendString(nil, key), ':'), raw...)
	}
	s.info = member(mcp.MetaKeyClientInfo, &clientInfo)
	s.caps = member(mcp.MetaKeyClientCapabilities, p.wireCapabilities())
}

// asksInput reports whether raw, a tools/call's result, asks the host for
// input (a multi round trip): it has inputRequests.
func asksInput(raw json.RawMessage) bool {
	asks := false
	rawjson.Members(raw, func(k, v []byte) bool {
		if string(k) == "inputRequests" && string(v) != "null" {
			asks = true
		}
		return !asks
	})
	return asks
}
