package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/ctxkey"
	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
	"github.com/mcpbridge/mcpbridge/internal/toolschema"
	"github.com/mcpbridge/mcpbridge/tool"
)

// CallToolResult calls any tool of the server, offered or not (the filters
// shape what a model sees, not what the host may call), and returns the
// server's result as it is, isError included, for a host relaying it (an
// MCP App's frame, say). The alias mcp__<server>__<tool> works too,
// <server> being the provider's name. A successful result of a tool whose
// listing declared an output schema is checked against it; a breach, or a
// missing structured result, is a [SchemaError]. The structured content is
// the JSON the server wrote, a json.RawMessage.
//
// A content part go-sdk cannot decode (corrupt base64, a missing or unknown
// type, a member of the wrong type) is replaced by a text part holding the
// one-line note [ToReply] would give it, and the other parts are kept. A
// result that is null, has no content, content that is not an array, or
// cannot be decoded at all is a [ProtocolError]. This needs the raw
// result, which this package reads over stdio, streamable HTTP and go-sdk's
// in-memory and io transports; over another transport given to
// [FromTransport], or the legacy SSE one, go-sdk's decoding is final (a bad
// part fails the call with a ProtocolError, and a null result is empty).
//
// args is anything that encodes as a JSON object (a json.RawMessage is sent
// as it is); nil sends {}.
func (p *Provider) CallToolResult(ctx context.Context, name string, args any) (*mcp.CallToolResult, error) {
	s, target, raw, err := p.hostCall(name, args)
	if err != nil {
		return nil, err
	}
	return p.call(ctx, s, target, raw, false)
}

// hostCall prepares a host's call of the tool name (its own name or its
// alias), listed or not: the live session, the server's name of the tool,
// and the arguments encoded.
func (p *Provider) hostCall(name string, args any) (*session, string, json.RawMessage, error) {
	s, err := p.conn.live(operation{"tools/call", name})
	if err != nil {
		return nil, "", nil, err
	}
	raw, err := encodeArgs(args)
	if err != nil {
		return nil, "", nil, &ConfigError{Server: p.name, Option: "arguments", Err: err}
	}
	target, _ := p.resolve(name, s.catalog().isListed)
	return s, target, raw, nil
}

// call sends one tools/call and checks the result against the output
// schema. If the exchange is lost during the call (the connection ended, or
// the HTTP request or its stream was cut), the call is sent again, on the
// same session if it still answers or else on the rebuilt one, only when
// the tool is annotated read-only or idempotent; otherwise the caller
// learns that the outcome is unknown. A call for a model (the handler's)
// leaves the result's _meta undecoded: a model reads the content alone.
func (p *Provider) call(ctx context.Context, s *session, name string, args json.RawMessage, model bool) (*mcp.CallToolResult, error) {
	if lt := s.catalog().listed[name]; lt != nil && lt.outputErr != nil {
		// Refused before it is sent: the tool would run, and its result
		// could not be checked.
		return nil, p.unusableOutput(name, lt)
	}
	res, err := p.callOnce(ctx, s, name, args, model)
	if err == nil || !lostExchange(ctx, err) {
		return res, err
	}
	holds := p.holds(ctx, s)
	if lt := s.catalog().listed[name]; lt != nil && lt.def.Annotations.Idempotent() && (holds || p.conn.reconnect != nil) {
		return p.resend(ctx, s, holds, name, args, model)
	}
	op := operation{"tools/call", name}
	var te *TransportError
	errors.As(err, &te) // lostExchange holds only for a TransportError
	return nil, &TransportError{Server: p.name, Op: op.String(), outcomeUnknown: true,
		Err: fmt.Errorf("the connection was lost during the call, so whether the tool ran is unknown: %w", te.Err)}
}

// callOnce sends one tools/call under the call timeout, which each progress
// notification for the call restarts, and reports the progress to the
// function ctx carries ([tool.WithProgress]). A call the server runs as a
// task is followed to its end within the same timeout, which each change
// of the task's status restarts too, and the function ctx carries
// ([WithTaskStatus]) is told of each. Its client span ends here, with the
// outcome judged and the output checked.
func (p *Provider) callOnce(ctx context.Context, s *session, name string, args json.RawMessage, model bool) (res *mcp.CallToolResult, err error) {
	f := p.inflight.begin(ctx, name)
	f.model = model && (p.tel == nil || !p.tel.content) // recorded content is the whole result
	f.holdSpan()
	var left error // a task handed to the caller, or asking it: the call's answer, not its failure
	defer func() {
		p.inflight.end(f)
		if left != nil {
			f.endSpan(ctx, nil, nil)
			return
		}
		f.endSpan(ctx, res, err)
	}()
	f.args = args
	err = p.request(f.ctx, s, operation{"tools/call", name}, p.cfg.callTimeout(), func(ctx context.Context, extend func()) error {
		var err error
		res, err = p.exchange(ctx, s, name, &f.args, extend)
		if leftToCaller(err) {
			left, err = err, nil
		}
		return err
	})
	switch {
	case left != nil:
		return nil, left
	case err != nil:
		return nil, err
	}
	if !res.IsError && res.InputRequests == nil {
		if err := p.checkOutput(s, name, res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// exchange makes a call's exchange with the server: it sends the call (for
// a caller answering a task's questions, it answers them instead), and
// follows to its end a task the call becomes, or hands it to the caller.
// extend restarts the call's timeout.
func (p *Provider) exchange(ctx context.Context, s *session, name string, args *json.RawMessage, extend func()) (*mcp.CallToolResult, error) {
	c := callerOf(ctx)
	if c.Answering != nil {
		return p.resume(ctx, s, name, c.Answering, c.InputResponses, statusReport(ctx, extend))
	}
	params := &mcp.CallToolParams{Name: name, Arguments: args, InputResponses: c.InputResponses, RequestState: c.RequestState}
	// Progress is asked for only when it matters: as a restart of the
	// timeout, or to a host that shows it. Otherwise it would only cost
	// notifications.
	if report := ctxkey.Value[func(tool.Progress)](ctx); p.cfg.callTimeout() > 0 || report != nil {
		token := p.calls.track(extend, report)
		defer p.calls.forget(token)
		params.SetProgressToken(token)
	}
	res, task, err := p.send(ctx, s, name, params)
	if task == nil {
		return res, err
	}
	if handed := p.handed(ctx, s, name, task); handed != nil {
		return nil, handed
	}
	return p.newRun(s, name, task, statusReport(ctx, extend)).follow(ctx)
}

// leftToCaller reports whether err, what a call's exchange returned, leaves
// the call to its caller: a task handed over, or asking the caller's client.
func leftToCaller(err error) bool {
	if _, ok := err.(*HandedTask); ok {
		return true
	}
	return askingOf(err) != nil
}

// send sends a call's params on s and returns its result, or the task the
// server made of it: once, or once more after a URL elicitation that the
// server asks for first ([Provider.elicitFirst]).
func (p *Provider) send(ctx context.Context, s *session, name string, params *mcp.CallToolParams) (*mcp.CallToolResult, *wireTask, error) {
	p.declare(params, callerOf(ctx))
	asTask := s.asTask(name)
	res, task, err := p.sendCall(ctx, s, name, params, asTask)
	again, aerr := p.elicitFirst(ctx, name, err)
	switch {
	case again:
		return p.sendCall(ctx, s, name, params, asTask)
	case aerr != nil:
		return nil, nil, aerr
	}
	return res, task, err
}

// sendCall sends one tools/call on s, asking for a task if asTask, and
// returns either its result, judged, or the task the server made of it:
// past go-sdk where the connection allows it (rawcall.go), else through
// go-sdk's session.
func (p *Provider) sendCall(ctx context.Context, s *session, name string, params *mcp.CallToolParams, asTask bool) (*mcp.CallToolResult, *wireTask, error) {
	if s.caller == nil {
		return p.sendSDK(ctx, s, name, params, asTask)
	}
	c := &rawSend{p: p, s: s, name: name, asTask: asTask}
	err := c.send(ctx, params)
	return c.res, c.task, err
}

// received judges raw, a result as the server wrote it, or hands it to
// go-sdk, and keeps the outcome.
func (c *rawSend) received(ctx context.Context, raw json.RawMessage) error {
	p, name := c.p, c.name
	var err error
	switch {
	case asksInput(raw):
		// go-sdk answers it, as it answers every question of the
		// server; within this request's span.
		c.res, c.task, err = p.sendSDK(telemetryDone(ctx), c.s, name, c.req.Params, c.asTask)
	case sdkfix.Plain(raw):
		c.res, err = p.taken(ctx, name, raw)
	default:
		if c.task, err = p.created(raw, true, name, c.asTask); c.task != nil || err != nil {
			return err
		}
		c.res, err = sdkfix.Decode(raw)
		c.res, err = p.judge(ctx, name, raw, true, c.res, err)
	}
	return err
}

// sendSDK is sendCall through go-sdk's session. A plain result the
// transport took from go-sdk is decoded here ([Provider.taken]).
func (p *Provider) sendSDK(ctx context.Context, s *session, name string, params *mcp.CallToolParams, asTask bool) (*mcp.CallToolResult, *wireTask, error) {
	var caught *sdkfix.Catch
	if f := frameKey.Value(ctx); f != nil {
		caught = &f.catch // the call's sends are one after another
		ctx = sdkfix.Catching(ctx, caught)
	} else {
		ctx, caught = sdkfix.WithCatch(ctx)
	}
	defer caught.Release()
	var res *mcp.CallToolResult
	var err error
	if asTask {
		res, err = mcp.CallCustomMethod[*taskCallParams, *mcp.CallToolResult](ctx, s.cs, "tools/call", &taskCallParams{CallToolParams: params})
	} else {
		res, err = s.cs.CallTool(ctx, params)
	}
	if raw, ok := caught.Taken(err); ok {
		res, err = p.taken(ctx, name, raw)
		return res, nil, err
	}
	raw, ok := caught.Raw()
	if err == nil && len(res.Content) == 0 && res.StructuredContent == nil {
		// A task comes with neither: go-sdk decodes it as an empty result.
		if t, err := p.created(raw, ok, name, asTask); t != nil || err != nil {
			return nil, t, err
		}
	}
	res, err = p.judge(ctx, name, raw, ok, res, err)
	if err == nil {
		structuredJSON(res)
	}
	return res, nil, err
}

// taken is the result of a call whose plain result raw the transport took
// from go-sdk ([sdkfix.Catch.Taken]): for a call made raw, its head (what
// the call checks: isError, the structured content as written), the whole
// kept in the call's rawCall; otherwise raw decoded as go-sdk decodes it,
// but without its decoder ([sdkfix.Decode]), and judged.
func (p *Provider) taken(ctx context.Context, name string, raw json.RawMessage) (*mcp.CallToolResult, error) {
	if out := rawCallOf(ctx); out != nil {
		res, err := p.head(name, raw)
		if err == nil {
			out.raw, out.res = raw, res
		}
		return res, err
	}
	decode := sdkfix.Decode
	if f := frameKey.Value(ctx); f != nil && f.model {
		decode = sdkfix.DecodeContent
	}
	res, err := decode(raw)
	return p.judge(ctx, name, raw, true, res, err)
}

// structuredJSON makes the structured content of a result go-sdk decoded
// the JSON it stands for, as [sdkfix.Decode] keeps it: a caller finds one
// type there whichever way the result came.
func structuredJSON(res *mcp.CallToolResult) {
	if res == nil || res.StructuredContent == nil {
		return
	}
	if _, ok := res.StructuredContent.(json.RawMessage); ok {
		return
	}
	if data, err := json.Marshal(res.StructuredContent); err == nil {
		res.StructuredContent = json.RawMessage(data)
	}
}

// askingOf returns the task err says asks its caller, or nil.
func askingOf(err error) *AskingTask {
	if err == nil {
		return nil
	}
	var asking *AskingTask // on the heap, as errors.As takes it: only here
	errors.As(err, &asking)
	return asking
}

// judge completes the decoded answer to a tools/call with the raw result,
// if ok, where the transport kept it: a result that arrived but that go-sdk could
// not decode is salvaged part by part, and an empty one is checked for what
// go-sdk decodes as empty but the protocol does not allow (null, no
// content). What cannot be had is a [ProtocolError].
func (p *Provider) judge(ctx context.Context, name string, raw json.RawMessage, ok bool, res *mcp.CallToolResult, err error) (*mcp.CallToolResult, error) {
	switch {
	case err == nil && (len(res.Content) > 0 || res.StructuredContent != nil):
		return res, nil
	case err != nil && ctx.Err() != nil:
		return nil, err
	}
	if ok && errors.Is(err, ErrInputRequired) {
		if res, ok := inputRequired(raw); ok {
			return res, nil
		}
	}
	switch {
	case !ok:
		return res, err
	case err == nil:
		err = sdkfix.Shape(raw)
	case json.Unmarshal(raw, new(mcp.CallToolResult)) == nil:
		// Not a result go-sdk could not decode: a multi-round-trip
		// whose input could not be given, say.
		return nil, err
	default:
		p.cfg.logger.DebugContext(ctx, "go-sdk could not decode a tool result; salvaging its parts", "server", p.name, "tool", name, "error", err)
		res, err = sdkfix.Salvage(raw, note)
	}
	if err != nil {
		return nil, &ProtocolError{Server: p.name, Op: operation{"tools/call", name}.String(), Err: err}
	}
	return res, nil
}

// unusableOutput is the error of every call of a tool whose declared output
// schema cannot be used: its results could never be checked.
func (p *Provider) unusableOutput(name string, lt *listedTool) error {
	ptr := "/outputSchema"
	if ue := (*toolschema.UnboundedError)(nil); errors.As(lt.outputErr, &ue) {
		ptr += ue.Pointer
	}
	return &SchemaError{Server: p.name, Tool: name, Pointer: ptr, Err: fmt.Errorf("the output schema cannot be used: %w", lt.outputErr)}
}

// checkOutput validates a successful result against the output schema the
// tool's listing declared. A tool the listing did not name is not checked.
func (p *Provider) checkOutput(s *session, name string, res *mcp.CallToolResult) error {
	lt := s.catalog().listed[name]
	if lt == nil || len(lt.def.OutputSchema) == 0 {
		return nil
	}
	switch {
	case lt.outputErr != nil:
		return p.unusableOutput(name, lt)
	case res.StructuredContent == nil:
		return &SchemaError{Server: p.name, Tool: name, Pointer: "/structuredContent", Err: errors.New("the tool declares an output schema but its result has no structured content")}
	}
	raw, ok := res.StructuredContent.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(res.StructuredContent); err != nil {
			return &SchemaError{Server: p.name, Tool: name, Pointer: "/structuredContent", Err: err}
		}
	}
	if err := lt.output.ValidateValue(raw); err != nil {
		return &SchemaError{Server: p.name, Tool: name, Pointer: "/structuredContent", Err: err}
	}
	return nil
}

// encodeArgs encodes a host's arguments as the JSON object a call sends:
// nil, or a value that encodes as null, sends {}.
func encodeArgs(args any) (json.RawMessage, error) {
	var data json.RawMessage
	switch a := args.(type) {
	case json.RawMessage:
		data = a
	case []byte:
		data = a
	default:
		var err error
		if data, err = json.Marshal(args); err != nil {
			return nil, err
		}
	}
	if t := bytes.TrimSpace(data); len(t) == 0 || string(t) == "null" {
		return json.RawMessage("{}"), nil
	}
	if !isObject(data) {
		return nil, errors.New("the arguments must encode as a JSON object")
	}
	return data, nil
}
