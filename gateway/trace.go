package gateway

import (
	"context"
	"reflect"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/internal/telemetry"
	"github.com/mcpbridge/mcpbridge/toolset"
)

// scope is the instrumentation scope of the gateway's spans.
const scope = "github.com/mcpbridge/mcpbridge/gateway"

// WithTracerProvider sets where the gateway's spans go, and the servers'
// behind it ([toolset.WithTracerProvider], unless [WithToolsetOptions]
// says otherwise); nil, the default, is OpenTelemetry's global provider, a
// no-op until the host installs one. Each request a client sends is a
// server span, as the MCP semantic conventions describe, in the trace the
// client's params._meta carries, so that one trace runs from the client
// through the gateway to the server.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(o *options) { o.tracerProvider = tp }
}

// tracing returns the gateway's telemetry, and the toolset option that
// sends the servers' spans to the same provider.
func (o *options) tracing() (*telemetry.Telemetry, []toolset.Option) {
	var opts []toolset.Option
	if o.tracerProvider != nil {
		opts = append(opts, toolset.WithTracerProvider(o.tracerProvider))
	}
	return telemetry.New(scope, o.tracerProvider, nil), opts
}

// traced is the middleware that makes each request a client sends the
// server span "{method} {target}", the child of the span whose context
// the request's _meta carries; a tool's failure (isError) is its
// error.type tool_error.
func (g *Gateway) traced(next mcp.MethodHandler) mcp.MethodHandler {
	if g.tel == nil {
		return next
	}
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		if meta := metaOf(req.GetParams()); len(meta) > 0 {
			ctx = telemetry.Extract(ctx, meta)
		}
		target := subject(req)
		ctx, span := g.tel.Start(ctx, telemetry.Named(method, target), trace.SpanKindServer, serverAttrs(method, target, req)...)
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.CallToolResult); ok && err == nil && r.IsError {
			telemetry.Fail(span, telemetry.ErrToolError, "the tool failed")
		}
		telemetry.End(span, err)
		return res, err
	}
}

// metaOf returns the _meta of p, which go-sdk leaves a nil pointer for a
// request sent without params (a ping).
func metaOf(p mcp.Params) map[string]any {
	if p == nil || reflect.ValueOf(p).IsNil() {
		return nil
	}
	return p.GetMeta()
}

// serverAttrs are the attributes of the server span of req.
func serverAttrs(method, target string, req mcp.Request) []attribute.KeyValue {
	attrs := []attribute.KeyValue{telemetry.MCPMethodName.String(method), telemetry.NetworkTransport.String(telemetry.TransportPipe)}
	if extra := req.GetExtra(); extra != nil && extra.Header != nil {
		attrs[1] = telemetry.NetworkTransport.String(telemetry.TransportTCP)
	}
	switch method {
	case telemetry.MethodToolsCall:
		attrs = append(attrs, telemetry.GenAIToolName.String(target), telemetry.GenAIOperation.String(telemetry.OpExecuteTool))
	case "resources/read":
		attrs = append(attrs, telemetry.MCPResourceURI.String(target))
	case "prompts/get":
		attrs = append(attrs, telemetry.GenAIPromptName.String(target))
	}
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss.ID() != "" {
		attrs = append(attrs, telemetry.MCPSessionID.String(ss.ID()))
	}
	return attrs
}
