package gateway

import (
	"context"
	"reflect"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/internal/telemetry"
)

// scope is the instrumentation scope of the gateway's spans.
const scope = "github.com/mcpbridge/mcpbridge/gateway"

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
		target := subject(req)
		ctx, end := g.serverSpan(ctx, method, target, metaOf(req.GetParams()), serverAttrs(method, target, req))
		res, err := next(ctx, method, req)
		r, ok := res.(*mcp.CallToolResult)
		end(ok && r != nil && r.IsError, err)
		return res, err
	}
}

// serverSpan starts the server span "{method} {target}" of a request, the
// child of the span whose context meta (the request's _meta) carries, and
// returns the function that ends it with the request's outcome: a tool's
// failure (isError) is its error.type tool_error.
func (g *Gateway) serverSpan(ctx context.Context, method, target string, meta map[string]any, attrs []attribute.KeyValue) (context.Context, func(isError bool, err error)) {
	if g.tel == nil {
		return ctx, func(bool, error) {}
	}
	if len(meta) > 0 {
		ctx = telemetry.Extract(ctx, meta)
	}
	ctx, span := g.tel.Start(ctx, telemetry.Named(method, target), trace.SpanKindServer, attrs...)
	return ctx, func(isError bool, err error) {
		if isError && err == nil {
			telemetry.Fail(span, telemetry.ErrToolError, "the tool failed")
		}
		telemetry.End(span, err)
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
	extra := req.GetExtra()
	attrs := spanAttrs(method, target, extra != nil && extra.Header != nil)
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss.ID() != "" {
		attrs = append(attrs, telemetry.MCPSessionID.String(ss.ID()))
	}
	return attrs
}

// spanAttrs are the attributes of the server span of a request of method
// about target, received over HTTP or stdio.
func spanAttrs(method, target string, overHTTP bool) []attribute.KeyValue {
	attrs := []attribute.KeyValue{telemetry.MCPMethodName.String(method), telemetry.NetworkTransport.String(telemetry.TransportPipe)}
	if overHTTP {
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
	return attrs
}
