package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/internal/ctxkey"
	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
	"github.com/mcpbridge/mcpbridge/internal/telemetry"
)

// WithTracerProvider sets where the provider's spans go; nil, the default,
// is OpenTelemetry's global provider, a no-op until the host installs one.
// See the package doc's Telemetry paragraph for what is traced.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) { c.tracerProvider = tp }
}

// WithMeterProvider sets where the provider's metrics go; nil, the
// default, is OpenTelemetry's global provider.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) { c.meterProvider = mp }
}

// WithCallContent records each tool call's arguments and result on its
// tools/call span (gen_ai.tool.call.arguments and gen_ai.tool.call.result,
// which the conventions leave to the host to opt into: they may hold
// anything). Each is recorded as its JSON text, as errors are shown: cut to
// a few thousand characters, with whatever looks like an API key replaced
// and URLs shown by scheme and host only. Without it no argument or result
// is recorded.
func WithCallContent() Option { return func(c *config) { c.callContent = true } }

// scope is the instrumentation scope of the provider's spans and metrics.
const scope = "github.com/mcpbridge/mcpbridge/mcptool"

// errTimedOut is the cause with which [Provider.request] ends a request
// whose timeout passed, so that its span says timeout, not canceled.
var errTimedOut = errors.New("the request timed out")

// clientTelemetry is a provider's instrumentation: the client span of each
// MCP request and notification (with mcp.client.operation.duration), its
// own spans around them (connect, start, reconnect, resend, refusals), and
// mcp.client.session.duration. A nil one records nothing.
type clientTelemetry struct {
	*telemetry.Telemetry
	server  attribute.KeyValue   // mcpbridge.server.name
	where   []attribute.KeyValue // network.transport, network.protocol.name, server.address, server.port
	content bool                 // record arguments and results
}

func newClientTelemetry(name string, d dialer, c *config) *clientTelemetry {
	t := telemetry.New(scope, c.tracerProvider, c.meterProvider)
	if t == nil {
		return nil
	}
	return &clientTelemetry{Telemetry: t, server: telemetry.ServerName.String(name), where: where(d), content: c.callContent}
}

// where describes how the server is reached, as the conventions name it:
// stdio and an in-process server over pipes, HTTP over TCP to an address
// and port. Of a transport the caller built nothing is known.
func where(d dialer) []attribute.KeyValue {
	if d.custom != nil {
		return nil
	}
	u, err := url.Parse(d.url)
	if d.command != "" || d.server != nil || err != nil || u.Host == "" {
		return []attribute.KeyValue{telemetry.NetworkTransport.String(telemetry.TransportPipe)}
	}
	port, _ := strconv.Atoi(u.Port())
	if port == 0 {
		port = 80
		if u.Scheme == "https" {
			port = 443
		}
	}
	return []attribute.KeyValue{
		telemetry.NetworkTransport.String(telemetry.TransportTCP),
		telemetry.NetworkProtocolName.String("http"),
		telemetry.ServerAddress.String(u.Hostname()),
		telemetry.ServerPort.Int(port),
	}
}

// instrument makes the session's client trace what it sends, and the
// transport's connect a span of its own.
func (p *Provider) instrument(client *mcp.Client, captured *sdkfix.Capture) {
	if p.tel == nil {
		return
	}
	captured.Transport = startTransport{captured.Transport, p.tel}
	client.AddSendingMiddleware(p.tel.sending)
}

// startTransport makes connecting a transport (starting the server
// process, for stdio) the span "start {server}".
type startTransport struct {
	mcp.Transport
	tel *clientTelemetry
}

func (t startTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	ctx, span := t.tel.Start(ctx, telemetry.Named(telemetry.SpanStart, t.tel.server.Value.AsString()), trace.SpanKindInternal,
		append([]attribute.KeyValue{t.tel.server}, t.tel.where...)...)
	conn, err := t.Transport.Connect(ctx)
	telemetry.End(span, err)
	return conn, err
}

// sending is the go-sdk sending middleware that makes every request and
// notification a client span, as the MCP conventions describe, and
// carries the span's trace context to the server in params._meta.
func (c *clientTelemetry) sending(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if telemetryDoneKey.Value(ctx) {
			return next(ctx, method, req)
		}
		x := c.begin(ctx, method, req)
		if x == nil {
			return next(ctx, method, req)
		}
		res, err := next(x.ctx, method, req)
		x.answered(req, res)
		if f := frameKey.Value(ctx); f != nil && f.holdsSpan && f.span == nil && method == telemetry.MethodToolsCall {
			f.span = x
			return res, err
		}
		x.end(ctx, res, err)
		return res, err
	}
}

// telemetryDone returns ctx marked as that of a request traced already: a
// call past go-sdk sent again through it (rawcall.go), whose span is the
// call's.
func telemetryDone(ctx context.Context) context.Context { return telemetryDoneKey.With(ctx, true) }

var telemetryDoneKey = ctxkey.New[bool]("mcpclient traced")

// A traced request is one request or notification being traced or timed.
type traced struct {
	c       *clientTelemetry
	ctx     context.Context // with the span, and the Sent
	span    trace.Span
	sent    *sdkfix.Sent
	start   time.Time
	metrics bool
	// attrs are what the span and the metric share: the method, the tool
	// or prompt, the protocol version, where the server is.
	attrs []attribute.KeyValue
}

// begin starts tracing (or timing) method, or returns nil when nothing
// records it. The span is named by the method alone until it is known to
// record, so that an unrecorded call costs no formatting.
func (c *clientTelemetry) begin(ctx context.Context, method string, req mcp.Request) *traced {
	sctx, span := c.Start(ctx, method, trace.SpanKindClient)
	metrics := c.Operation.Enabled(ctx)
	if !span.IsRecording() && !metrics {
		return nil
	}
	x := &traced{c: c, ctx: sctx, span: span, start: time.Now(), metrics: metrics}
	x.attrs = append(x.attrs, telemetry.MCPMethodName.String(method))
	target := ""
	params := req.GetParams()
	if p, ok := params.(*taskCallParams); ok {
		params = p.CallToolParams
	}
	switch p := params.(type) {
	case *mcp.CallToolParams:
		target = p.Name
		x.attrs = append(x.attrs, telemetry.GenAIToolName.String(p.Name), telemetry.GenAIOperation.String(telemetry.OpExecuteTool))
	case *mcp.GetPromptParams:
		target = p.Name
		x.attrs = append(x.attrs, telemetry.GenAIPromptName.String(p.Name))
	}
	cs, _ := req.GetSession().(*mcp.ClientSession)
	if cs != nil && cs.InitializeResult() != nil {
		x.attrs = append(x.attrs, telemetry.MCPProtocol.String(cs.InitializeResult().ProtocolVersion))
	}
	x.attrs = append(x.attrs, c.where...)
	if !span.IsRecording() {
		return x
	}
	span.SetName(telemetry.Named(method, target))
	span.SetAttributes(x.attrs...)
	span.SetAttributes(c.server)
	if uri := resourceURI(params); uri != "" {
		span.SetAttributes(telemetry.MCPResourceURI.String(uri))
	}
	if cs != nil && cs.ID() != "" {
		span.SetAttributes(telemetry.MCPSessionID.String(cs.ID()))
	}
	if p, ok := params.(*mcp.CallToolParams); ok && c.content {
		span.SetAttributes(telemetry.GenAIToolArguments.String(telemetry.Content(jsonText(p.Arguments))))
	}
	if params != nil {
		params.SetMeta(telemetry.Inject(sctx, params.GetMeta()))
	}
	x.ctx, x.sent = sdkfix.WithSent(sctx)
	return x
}

// resourceURI is the resource a request is about, if any.
func resourceURI(params mcp.Params) string {
	switch p := params.(type) {
	case *mcp.ReadResourceParams:
		return p.URI
	case *mcp.SubscribeParams:
		return p.URI
	case *mcp.UnsubscribeParams:
		return p.URI
	}
	return ""
}

// answered records what only the answer tells: the request's id, and the
// session and protocol version an initialize settled.
func (x *traced) answered(req mcp.Request, res mcp.Result) {
	if ir, ok := res.(*mcp.InitializeResult); ok && ir != nil {
		x.attrs = append(x.attrs, telemetry.MCPProtocol.String(ir.ProtocolVersion))
		x.span.SetAttributes(telemetry.MCPProtocol.String(ir.ProtocolVersion))
	}
	if !x.span.IsRecording() {
		return
	}
	if id, ok := x.sent.ID(); ok {
		x.span.SetAttributes(telemetry.JSONRPCRequestID.String(fmt.Sprint(id.Raw())))
	}
	if cs, ok := req.GetSession().(*mcp.ClientSession); ok && cs.ID() != "" {
		x.span.SetAttributes(telemetry.MCPSessionID.String(cs.ID()))
	}
}

// end ends the traced request with its outcome: error.type and an error status
// for a failure or a tool's isError result, the result itself when the
// host records content, and the operation's duration.
func (x *traced) end(ctx context.Context, res mcp.Result, err error) {
	var errType, code, why string
	tr, _ := res.(*mcp.CallToolResult)
	switch {
	case err != nil:
		errType, code, why = errorType(ctx, err), telemetry.StatusCode(err), message(err)
	case tr != nil && tr.IsError:
		errType = telemetry.ErrToolError
	}
	if x.span.IsRecording() {
		switch {
		case errType != "":
			if code != "" {
				x.span.SetAttributes(telemetry.RPCStatusCode.String(code))
			}
			telemetry.Fail(x.span, errType, why)
		case tr != nil && x.c.content:
			x.span.SetAttributes(telemetry.GenAIToolResult.String(telemetry.Content(jsonText(tr))))
		}
		x.span.End()
	}
	if x.metrics {
		attrs := x.attrs
		if errType != "" {
			attrs = append(attrs, telemetry.ErrorTypeKey.String(errType))
		}
		if code != "" {
			attrs = append(attrs, telemetry.RPCStatusCode.String(code))
		}
		telemetry.Seconds(ctx, x.c.Operation, x.start, attrs...)
	}
}

// errorType is the error.type of a failed request (see package
// internal/telemetry): a timeout of this package's ends the request's
// context with errTimedOut, and go-sdk's errors are read as this package
// reads them.
func errorType(ctx context.Context, err error) string {
	if errors.Is(context.Cause(ctx), errTimedOut) {
		return telemetry.ErrTimeout
	}
	err = classify("", "", err, false)
	if te := (*TransportError)(nil); errors.As(err, &te) && !te.Timeout() && connectionGone(err) {
		return telemetry.ErrConnectionLost
	}
	return telemetry.ErrorType(err)
}

// message is what a span's status says of a failure: the server's own
// words for a JSON-RPC error, as the conventions ask, else the error.
func message(err error) string {
	var wire *jsonrpc.Error
	if errors.As(err, &wire) {
		return wire.Message
	}
	return err.Error()
}

func jsonText(v any) string {
	switch raw := v.(type) {
	case json.RawMessage:
		return string(raw)
	case *json.RawMessage: // a call's arguments (callFrame)
		return string(*raw)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(data)
}

// holdSpan asks the middleware to leave the client span of the tools/call
// sent in frame f to endSpan, which callOnce calls with the outcome it
// decides: a result go-sdk could not decode but that was salvaged is a
// success, a null result or one that breaks the output schema a failure.
func (f *callFrame) holdSpan() { f.holdsSpan = true }

// endSpan ends the span of the frame's tools/call, if one was traced or
// timed.
func (f *callFrame) endSpan(ctx context.Context, res *mcp.CallToolResult, err error) {
	if f.span != nil {
		f.span.end(ctx, res, err)
	}
}

// dialTraced is dial as the span "connect {server}": starting or reaching
// the server, the handshake and the listing, each a span within it. A
// session it makes is timed for mcp.client.session.duration.
func (p *Provider) dialTraced(ctx context.Context) (*session, error) {
	if p.tel == nil {
		return p.dial(ctx)
	}
	ctx, span := p.tel.Start(ctx, telemetry.Named(telemetry.SpanConnect, p.name), trace.SpanKindInternal,
		append([]attribute.KeyValue{p.tel.server}, p.tel.where...)...)
	s, err := p.dial(ctx)
	if err == nil {
		s.clock = p.tel.clock(s.init.ProtocolVersion)
		span.SetAttributes(telemetry.MCPProtocol.String(s.init.ProtocolVersion))
	}
	telemetry.End(span, err)
	return s, err
}

// A sessionClock times one session for mcp.client.session.duration,
// recorded once, when the session ends or is closed. A nil one records
// nothing.
type sessionClock struct {
	tel   *clientTelemetry
	start time.Time
	attrs []attribute.KeyValue
	once  sync.Once
}

func (c *clientTelemetry) clock(version string) *sessionClock {
	return &sessionClock{tel: c, start: time.Now(), attrs: append([]attribute.KeyValue{telemetry.MCPProtocol.String(version)}, c.where...)}
}

// stop records the session's duration, with error.type connection_lost if
// it ended unasked.
func (k *sessionClock) stop(lost bool) {
	if k == nil {
		return
	}
	k.once.Do(func() {
		attrs := k.attrs
		if lost {
			attrs = append(attrs, telemetry.ErrorTypeKey.String(telemetry.ErrConnectionLost))
		}
		telemetry.Seconds(context.Background(), k.tel.Session, k.start, attrs...)
	})
}

// rebuilding is the span "reconnect {server}" of rebuilding a lost
// connection, each attempt a connect span within it; done ends it and
// counts the rebuild, given up on if err is not nil.
func (c *clientTelemetry) rebuilding(ctx context.Context) (_ context.Context, done func(error)) {
	if c == nil {
		return ctx, func(error) {}
	}
	ctx, span := c.Start(ctx, telemetry.Named(telemetry.SpanReconnect, c.server.Value.AsString()), trace.SpanKindInternal, c.server)
	span.AddEvent("connection lost", trace.WithAttributes(telemetry.ErrorTypeKey.String(telemetry.ErrConnectionLost)))
	return ctx, func(err error) {
		telemetry.End(span, err)
		attrs := []attribute.KeyValue{c.server}
		if err != nil {
			attrs = append(attrs, telemetry.ErrorTypeKey.String(telemetry.ErrorType(err)))
		}
		telemetry.Count(ctx, c.Reconnects, attrs...)
	}
}

// resending is the span "resend {tool}" of a tool call sent again after
// its exchange was lost (waiting for the rebuilt connection, if need be,
// then the new tools/call); done ends it.
func (c *clientTelemetry) resending(ctx context.Context, toolName string) (_ context.Context, done func(error)) {
	if c == nil {
		return ctx, func(error) {}
	}
	ctx, span := c.Start(ctx, telemetry.Named(telemetry.SpanResend, toolName), trace.SpanKindInternal,
		c.server, telemetry.GenAIToolName.String(toolName))
	telemetry.Count(ctx, c.Resends, c.server, telemetry.GenAIToolName.String(toolName))
	return ctx, func(err error) { telemetry.End(span, err) }
}

// refused records a call refused before it was sent: its arguments broke
// the tool's input schema.
func (c *clientTelemetry) refused(ctx context.Context, toolName string, err error) {
	if c != nil {
		c.Refused(ctx, toolName, telemetry.RefusedArguments, err)
	}
}

// taskWait is the span "await_task {tool}" of following a task to its end,
// each poll a client span within it. A nil telemetry records nothing.
func (c *clientTelemetry) taskWait(ctx context.Context, toolName, taskID string) (context.Context, *taskWaiting) {
	if c == nil {
		return ctx, nil
	}
	ctx, w := c.StartTaskWait(ctx, toolName, taskID)
	return ctx, &taskWaiting{w}
}

// taskWaiting is a task being waited for; a nil one records nothing.
type taskWaiting struct{ w *telemetry.TaskWait }

func (t *taskWaiting) polled(status TaskStatus) {
	if t != nil {
		t.w.Polled(string(status))
	}
}

func (t *taskWaiting) end(err error) {
	if t != nil {
		t.w.End(err)
	}
}
