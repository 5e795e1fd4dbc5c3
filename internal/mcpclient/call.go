package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/ctxkey"
	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
	"github.com/mcpbridge/mcpbridge/internal/toolschema"
	"github.com/mcpbridge/mcpbridge/tool"
)

// CallTool calls any tool of the server, offered or not (the filters shape
// what a model sees, not what the host may call), and returns its result as
// one string: a single text as it is; several parts as a JSON array of
// strings, each non-text part as a one-line note; a result marked isError as
// {"error": "..."} with a nil error. The alias mcp__<server>__<tool> works
// too, <server> being the provider's name.
//
// It is the call_tool of the seed's provider API, for a host that hands a
// model one string (the {"error": ...} form is what [tool.Compose] reads
// from such handlers). Go code that must tell a failure from a result uses
// [Provider.Handler] (a [tool.FailedError]) or [Provider.CallToolResult]
// (IsError).
func (p *Provider) CallTool(ctx context.Context, name string, args any) (string, error) {
	res, err := p.CallToolResult(ctx, name, args)
	if err != nil {
		return "", err
	}
	if res.IsError {
		data, _ := json.Marshal(map[string]string{"error": toText(res, p.name)})
		return string(data), nil
	}
	return toText(res, p.name), nil
}

// CallToolResult calls any tool of the server, as [Provider.CallTool] does,
// and returns the server's result as it is, isError included, for a host
// relaying it (an MCP App's frame, say). A successful result of a tool whose
// listing declared an output schema is checked against it; a breach, or a
// missing structured result, is a [SchemaError].
//
// A content part go-sdk cannot decode (corrupt base64, a missing or unknown
// type, a member of the wrong type) is replaced by a text part holding the
// one-line note [ToText] would give it, and the other parts are kept. A
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
	return p.call(ctx, s, target, raw)
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
// learns that the outcome is unknown.
func (p *Provider) call(ctx context.Context, s *session, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	if lt := s.catalog().listed[name]; lt != nil && lt.outputErr != nil {
		// Refused before it is sent: the tool would run, and its result
		// could not be checked.
		return nil, p.unusableOutput(name, lt)
	}
	res, err := p.callOnce(ctx, s, name, args)
	if err == nil || !lostExchange(ctx, err) {
		return res, err
	}
	holds := p.holds(ctx, s)
	if lt := s.catalog().listed[name]; lt != nil && lt.def.Annotations.Idempotent() && (holds || p.conn.reconnect != nil) {
		return p.resend(ctx, s, holds, name, args)
	}
	op := operation{"tools/call", name}
	var te *TransportError
	errors.As(err, &te) // lostExchange holds only for a TransportError
	return nil, &TransportError{Server: p.name, Op: op.String(), outcomeUnknown: true,
		Err: fmt.Errorf("the connection was lost during the call, so whether the tool ran is unknown: %w", te.Err)}
}

// resend sends a call again whose exchange on s was lost: on s if it
// still holds, else on the rebuilt connection once it is ready.
func (p *Provider) resend(ctx context.Context, s *session, holds bool, name string, args json.RawMessage) (res *mcp.CallToolResult, err error) {
	ctx, done := p.tel.resending(ctx, name)
	defer func() { done(err) }()
	next := s
	if !holds {
		var werr error
		if next, werr = p.conn.waitReady(ctx); werr != nil {
			return nil, p.classify(operation{"tools/call", name}.String(), werr, false)
		}
	}
	p.cfg.logger.InfoContext(ctx, "the exchange was lost during a call; sending it again", "server", p.name, "tool", name)
	return p.callOnce(ctx, next, name, args)
}

// callOnce sends one tools/call under the call timeout, which each progress
// notification for the call restarts, and reports the progress to the
// function ctx carries ([tool.WithProgress]). A call the server runs as a
// task is followed to its end within the same timeout, which each change
// of the task's status restarts too, and the function ctx carries
// ([WithTaskStatus]) is told of each. Its client span ends here, with the
// outcome judged and the output checked.
func (p *Provider) callOnce(ctx context.Context, s *session, name string, args json.RawMessage) (res *mcp.CallToolResult, err error) {
	var (
		handed *HandedTask
		asking *AskingTask
	)
	d := p.cfg.callTimeout()
	report := ctxkey.Value[func(tool.Progress)](ctx)
	f := p.inflight.begin(ctx, name)
	f.holdSpan()
	defer func() {
		p.inflight.end(f)
		if handed != nil || asking != nil {
			f.endSpan(ctx, nil, nil) // not a failure: the caller follows or answers the task
			return
		}
		f.endSpan(ctx, res, err)
	}()
	err = p.request(f.ctx, s, operation{"tools/call", name}, d, func(ctx context.Context, extend func()) error {
		c := callerOf(ctx)
		params := &mcp.CallToolParams{Name: name, Arguments: args, InputResponses: c.InputResponses, RequestState: c.RequestState}
		declared := p.declare(params, c)
		if !declared {
			s.fillMeta(params)
		}
		// Progress is asked for only when it matters: as a restart of the
		// timeout, or to a host that shows it. Otherwise it would only
		// cost notifications.
		if d > 0 || report != nil {
			token := p.calls.track(extend, report)
			defer p.calls.forget(token)
			params.SetProgressToken(token)
		}
		if c.Answering != nil {
			res, err = p.resume(ctx, s, name, c.Answering, c.InputResponses, statusReport(ctx, extend))
			asking = askingOf(err)
			if asking != nil {
				return nil
			}
			return err
		}
		var task *wireTask
		var err error
		asTask := s.asTask(name, false)
		res, task, err = p.sendCall(ctx, s, name, params, asTask)
		if !declared {
			s.keepMeta(params)
		}
		if again, aerr := p.elicitFirst(ctx, name, err); again {
			res, task, err = p.sendCall(ctx, s, name, params, asTask)
		} else if aerr != nil {
			err = aerr
		}
		if handed = p.handed(ctx, s, name, task); handed != nil {
			return nil
		}
		if task != nil {
			res, err = p.newRun(s, name, task, statusReport(ctx, extend)).follow(ctx)
		}
		if asking = askingOf(err); asking != nil {
			return nil
		}
		return err
	})
	switch {
	case handed != nil:
		return nil, handed
	case asking != nil:
		return nil, asking
	}
	if err != nil {
		return nil, err
	}
	if !res.IsError && res.InputRequests == nil {
		if err := p.checkOutput(s, name, res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// sentMeta is what go-sdk writes in the _meta of every request on a
// session of protocol 2026-07-28 or later (SEP-2575), whatever the request:
// the protocol version and the client's capabilities. It makes them again
// for each request, a copy of the capabilities each time (five
// allocations), though they follow from the session alone, and it keeps
// what it finds there. So the first call's are kept and given to the next.
type sentMeta struct{ version, capabilities any }

// fillMeta gives params the _meta go-sdk wrote in an earlier call on s,
// if one was kept.
func (s *session) fillMeta(params *mcp.CallToolParams) {
	m := s.meta.Load()
	if m == nil {
		return
	}
	meta := params.GetMeta()
	if meta == nil {
		meta = mcp.Meta{}
		params.SetMeta(meta)
	}
	if _, ok := meta[mcp.MetaKeyProtocolVersion]; !ok {
		meta[mcp.MetaKeyProtocolVersion] = m.version
	}
	if _, ok := meta[mcp.MetaKeyClientCapabilities]; !ok {
		meta[mcp.MetaKeyClientCapabilities] = m.capabilities
	}
}

// keepMeta keeps the _meta go-sdk wrote in params, those of a call that
// declared no capabilities of its own, if none was kept yet.
func (s *session) keepMeta(params *mcp.CallToolParams) {
	if s.meta.Load() != nil {
		return
	}
	version, ok := params.Meta[mcp.MetaKeyProtocolVersion]
	caps, ok2 := params.Meta[mcp.MetaKeyClientCapabilities]
	if ok && ok2 {
		s.meta.CompareAndSwap(nil, &sentMeta{version, caps})
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

// judge completes go-sdk's answer to a tools/call with the raw result,
// where the transport kept it: a result that arrived but that go-sdk could
// not decode is salvaged part by part, and an empty one is checked for what
// go-sdk decodes as empty but the protocol does not allow (null, no
// content). What cannot be had is a [ProtocolError].
func (p *Provider) judge(ctx context.Context, name string, caught *sdkfix.Catch, res *mcp.CallToolResult, err error) (*mcp.CallToolResult, error) {
	switch {
	case err == nil && (len(res.Content) > 0 || res.StructuredContent != nil):
		return res, nil
	case err != nil && ctx.Err() != nil:
		return nil, err
	}
	raw, ok := caught.Raw()
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

// progress follows the calls in flight that asked for progress, by
// progress token.
type progress struct {
	mu    sync.Mutex
	next  int64
	calls map[string]tracked // by token
}

// A tracked call is told of its progress: extend restarts its timeout,
// report (if not nil) hands the progress to the host.
type tracked struct {
	extend func()
	report func(tool.Progress)
}

// track returns a new progress token for a call whose timeout extend
// restarts and whose progress goes to report; forget forgets it when the
// call is over.
func (pr *progress) track(extend func(), report func(tool.Progress)) (token string) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.next++
	token = "mcpbridge-" + strconv.FormatInt(pr.next, 10)
	if pr.calls == nil {
		pr.calls = map[string]tracked{}
	}
	pr.calls[token] = tracked{extend, report}
	return token
}

// forget forgets the call of token.
func (pr *progress) forget(token string) {
	pr.mu.Lock()
	delete(pr.calls, token)
	pr.mu.Unlock()
}

// progressed restarts the timeout of the call a progress notification is
// about and reports it. go-sdk calls it for one notification at a time.
func (pr *progress) progressed(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	if req == nil || req.Params == nil {
		return
	}
	pr.mu.Lock()
	c, ok := pr.calls[fmt.Sprint(req.Params.ProgressToken)]
	pr.mu.Unlock()
	if !ok {
		return
	}
	c.extend()
	if c.report != nil {
		c.report(tool.Progress{Progress: req.Params.Progress, Total: req.Params.Total, Message: req.Params.Message})
	}
}

// lostExchange reports whether err says that the exchange of a call with
// the server was lost, rather than the call failing on a live connection
// (an HTTP status, say): the connection ended, or the HTTP request or the
// stream of its answer was cut.
func lostExchange(ctx context.Context, err error) bool {
	var te *TransportError
	return errors.As(err, &te) && !te.Timeout() && ctx.Err() == nil && connectionGone(err)
}

// connectionGone reports whether err says the connection, or the exchange
// of one request on it, ended: go-sdk closed it, the server forgot the HTTP
// session, a stdio server's output ended (its process exited), or an HTTP
// connection was cut (a server restarting), which go-sdk reports as an EOF
// or a reset of the request, or, for a stream it cannot resume, in text
// alone ([sdkfix.StreamLost]).
func connectionGone(err error) bool {
	return errors.Is(err, mcp.ErrConnectionClosed) ||
		errors.Is(err, mcp.ErrSessionMissing) ||
		errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) ||
		sdkfix.StreamLost(err)
}

// holds reports whether the session s still answers after a call's
// exchange on it was lost. go-sdk fails the call as soon as the exchange
// breaks, before the session reports its end (a stdio server that exited)
// or without it ever doing so (an HTTP server that restarted learns that it
// forgot the session only at the next request; one that went away, never).
// A ping tells. A session that does not answer is closed, so that the
// provider rebuilds it if it reconnects, and holds returns once it has
// ended; one whose caller gave up is left as it is.
//
// Protocol 2026-07-28 has no ping, and nothing to forget: over HTTP each
// request stands alone, and a server that went away fails the next one;
// over a stream, an exchange is lost only with the stream, whose end the
// session reports.
func (p *Provider) holds(ctx context.Context, s *session) bool {
	select {
	case <-s.done:
		return false
	default:
	}
	if s.init.ProtocolVersion >= "2026-07-28" {
		if p.dialer.url != "" {
			return true
		}
		wait, stop := ctx, func() {}
		if d := p.cfg.requestTimeout(); d > 0 {
			wait, stop = context.WithTimeout(ctx, d)
		}
		defer stop()
		select {
		case <-s.done:
		case <-wait.Done():
		}
		return false
	}
	err := p.request(ctx, s, operation{"ping", ""}, p.cfg.requestTimeout(), func(ctx context.Context, _ func()) error {
		return s.cs.Ping(ctx, nil)
	})
	if err == nil {
		return true
	}
	if ctx.Err() == nil {
		p.cfg.logger.InfoContext(ctx, "the server does not answer on the session that lost a call; closing it", "server", p.name, "error", err)
		s.conn.Close()
		select {
		case <-s.done:
		case <-ctx.Done():
		}
	}
	return false
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
