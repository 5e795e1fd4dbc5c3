package mcptool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/schema"
	"github.com/mcpbridge/mcpbridge/tool"
)

// A HandlerOption configures [Provider.Handler].
type HandlerOption func(*handlerConfig)

type handlerConfig struct{ gated bool }

// GateDiscovery sets whether the handler serves only the tools the provider
// offers (true, the default) or forwards every name to the server (false).
//
// Gated, a name the provider did not offer is an [tool.UnservedError], which
// lets [tool.Compose] try the next handler. Ungated is for a gateway that
// serves tools its listing never showed this connection, behind a host that
// has its own allow-list; such a handler never declines a call, so it goes
// last in a composition.
func GateDiscovery(on bool) HandlerOption { return func(c *handlerConfig) { c.gated = on } }

// Handler returns the [tool.Handler] that runs a model's calls on this
// server. It may be taken before Connect; calls made while the provider is
// not connected fail with [ErrNotConnected].
//
// The handler accepts the alias mcp__<server>__<tool> of any of its tools,
// where <server> is the provider's name ([Provider.Name]): an alias naming
// another server is not this handler's, so a composition passes it on. A result
// the server marks isError becomes a [tool.FailedError] (failed, not
// refused), as does a successful result that breaks the tool's output schema
// (wrapping a [SchemaError]). Results are converted for the model as
// [ToResult] describes; see [Provider.CallToolResult] for a result that
// cannot be decoded.
func (p *Provider) Handler(opts ...HandlerOption) tool.Handler {
	cfg := handlerConfig{gated: true}
	for _, o := range opts {
		o(&cfg)
	}
	return &handler{p: p, gated: cfg.gated}
}

// A handler is a provider's [tool.Handler]: it resolves a called name
// against a listing, sends the call ([Provider.call]) and converts the
// result for the model.
type handler struct {
	p     *Provider
	gated bool     // decline a name the listing does not offer
	cat   *catalog // the listing served; nil: the session's current one
}

func (h *handler) Call(ctx context.Context, name string, args json.RawMessage) (tool.Result, error) {
	p := h.p
	s, err := p.live(operation{"tools/call", name})
	if err != nil {
		return tool.Result{}, err
	}
	cat := h.cat
	if cat == nil {
		cat = s.catalog()
	}
	target, ok := p.resolve(name, cat.isOffered)
	if !ok && h.gated {
		return tool.Result{}, &tool.UnservedError{Name: name}
	}
	args = tool.ObjectArgs(args)
	if !isObject(args) {
		return tool.Result{}, &tool.RefusedError{Name: name, Message: "the arguments must be a JSON object"}
	}
	res, err := p.call(ctx, s, target, args)
	var se *SchemaError
	switch {
	case errors.As(err, &se):
		msg := "the server's result does not match the tool's output schema: "
		if strings.HasPrefix(se.Pointer, "/outputSchema") || errors.Is(err, schema.ErrTooComplex) {
			msg = "the server's result cannot be checked: "
		}
		return tool.Result{}, &tool.FailedError{Name: name, Message: msg + se.Err.Error(), Err: err}
	case err != nil:
		return tool.Result{}, err
	case res.IsError:
		return tool.Result{}, &tool.FailedError{Name: name, Message: ToText(res)}
	}
	return ToResult(res), nil
}

// resolve maps a called name to the server's tool name: the name itself if
// known, or, for the alias mcp__<server>__<tool> whose server part is this
// provider's name, its tool part if known. ok reports whether the result is
// known; if not, target is what an ungated call sends: the tool part of an
// alias of this server, or else name itself.
func (p *Provider) resolve(name string, known func(string) bool) (target string, ok bool) {
	if known(name) {
		return name, true
	}
	o, ok, _ := tool.ResolveAlias(name, func(o tool.Origin) bool { return o.Server == p.name })
	if !ok {
		return name, false
	}
	return o.Tool, known(o.Tool)
}

// CallTool calls any tool of the server, offered or not (the filters shape
// what a model sees, not what the host may call), and returns its result as
// one string: a single text as it is; several parts as a JSON array of
// strings, each non-text part as a one-line note; a result marked isError as
// {"error": "..."} with a nil error. The alias mcp__<server>__<tool> works
// too, <server> being the provider's name.
func (p *Provider) CallTool(ctx context.Context, name string, args any) (string, error) {
	res, err := p.CallToolResult(ctx, name, args)
	if err != nil {
		return "", err
	}
	if res.IsError {
		data, _ := json.Marshal(map[string]string{"error": ToText(res)})
		return string(data), nil
	}
	return ToText(res), nil
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
	s, err := p.live(operation{"tools/call", name})
	if err != nil {
		return nil, err
	}
	raw, err := encodeArgs(args)
	if err != nil {
		return nil, &ConfigError{Server: p.name, Option: "arguments", Err: err}
	}
	target, _ := p.resolve(name, s.catalog().isListed)
	return p.call(ctx, s, target, raw)
}

func (c *catalog) isOffered(name string) bool { return c.offers[name] }
func (c *catalog) isListed(name string) bool  { return c.listed[name] != nil }

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
	op := operation{"tools/call", name}
	holds := p.holds(ctx, s)
	if lt := s.catalog().listed[name]; lt != nil && lt.def.Annotations.Idempotent() && (holds || p.reconnects()) {
		next := s
		if !holds {
			var werr error
			if next, werr = p.waitReady(ctx); werr != nil {
				return nil, classify(p.name, op.String(), werr, false)
			}
		}
		p.cfg.logger.Info("the exchange was lost during a call; sending it again", "server", p.name, "tool", name)
		return p.callOnce(ctx, next, name, args)
	}
	var te *TransportError
	errors.As(err, &te) // lostExchange holds only for a TransportError
	return nil, &TransportError{Server: p.name, Op: op.String(), outcomeUnknown: true,
		Err: fmt.Errorf("the connection was lost during the call, so whether the tool ran is unknown: %w", te.Err)}
}

// callOnce sends one tools/call under the call timeout, which each progress
// notification for the call restarts.
func (p *Provider) callOnce(ctx context.Context, s *session, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	var res *mcp.CallToolResult
	d := p.cfg.callTimeout()
	err := p.request(ctx, s, operation{"tools/call", name}, d, func(ctx context.Context, extend func()) error {
		params := &mcp.CallToolParams{Name: name, Arguments: args}
		// Progress only matters as a restart of the timeout; without one,
		// asking the server for progress would only cost notifications.
		if d > 0 {
			token := "mcpbridge-" + strconv.FormatInt(p.tokens.Add(1), 10)
			p.progress.Store(token, extend)
			defer p.progress.Delete(token)
			params.SetProgressToken(token)
		}
		ctx, caught := withCatch(ctx)
		defer caught.release()
		var err error
		res, err = s.cs.CallTool(ctx, params)
		res, err = p.judge(ctx, name, caught, res, err)
		return err
	})
	if err != nil {
		return nil, err
	}
	if !res.IsError {
		if err := p.checkOutput(s, name, res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// judge completes go-sdk's answer to a tools/call with the raw result,
// where the transport kept it: a result that arrived but that go-sdk could
// not decode is salvaged part by part, and an empty one is checked for what
// go-sdk decodes as empty but the protocol does not allow (null, no
// content). What cannot be had is a [ProtocolError].
func (p *Provider) judge(ctx context.Context, name string, caught *rawCatch, res *mcp.CallToolResult, err error) (*mcp.CallToolResult, error) {
	switch {
	case err == nil && (len(res.Content) > 0 || res.StructuredContent != nil):
		return res, nil
	case err != nil && ctx.Err() != nil:
		return nil, err
	}
	raw, ok := caught.raw()
	switch {
	case !ok:
		return res, err
	case err == nil:
		_, _, err = shape(raw)
	case json.Unmarshal(raw, new(mcp.CallToolResult)) == nil:
		// Not a result go-sdk could not decode: a multi-round-trip
		// whose input could not be given, say.
		return nil, err
	default:
		p.cfg.logger.Debug("go-sdk could not decode a tool result; salvaging its parts", "server", p.name, "tool", name, "error", err)
		res, err = salvage(raw)
	}
	if err != nil {
		return nil, &ProtocolError{Server: p.name, Op: operation{"tools/call", name}.String(), Err: err}
	}
	return res, nil
}

// progressed restarts the timeout of the call a progress notification is
// about.
func (p *Provider) progressed(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	if req == nil || req.Params == nil {
		return
	}
	if extend, ok := p.progress.Load(fmt.Sprint(req.Params.ProgressToken)); ok {
		extend.(func())()
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
// or a reset of the request, or, for a stream it cannot resume, as
// errStreamLost's text.
func connectionGone(err error) bool {
	return errors.Is(err, mcp.ErrConnectionClosed) ||
		errors.Is(err, mcp.ErrSessionMissing) ||
		errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) ||
		strings.Contains(err.Error(), errStreamLost)
}

// errStreamLost is the text of go-sdk's error for a call whose answer
// stream ended without the answer and cannot be resumed.
const errStreamLost = "request terminated without response"

// holds reports whether the session s still answers after a call's
// exchange on it was lost. go-sdk fails the call as soon as the exchange
// breaks, before the session reports its end (a stdio server that exited)
// or without it ever doing so (an HTTP server that restarted learns that it
// forgot the session only at the next request; one that went away, never).
// A ping tells. A session that does not answer is closed, so that the
// provider rebuilds it if it reconnects, and holds returns once it has
// ended; one whose caller gave up is left as it is.
func (p *Provider) holds(ctx context.Context, s *session) bool {
	select {
	case <-s.done:
		return false
	default:
	}
	err := p.request(ctx, s, operation{"ping", ""}, p.cfg.requestTimeout, func(ctx context.Context, _ func()) error {
		return s.cs.Ping(ctx, nil)
	})
	if err == nil {
		return true
	}
	if ctx.Err() == nil {
		p.cfg.logger.Info("the server does not answer on the session that lost a call; closing it", "server", p.name, "error", err)
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
	if ue := (*schema.UnboundedError)(nil); errors.As(lt.outputErr, &ue) {
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

// encodeArgs encodes a host's arguments as the JSON object a call sends.
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
	data = tool.ObjectArgs(data)
	if !isObject(data) {
		return nil, errors.New("the arguments must encode as a JSON object")
	}
	return data, nil
}

func isObject(data json.RawMessage) bool {
	for _, c := range data {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c == '{'
	}
	return false
}
