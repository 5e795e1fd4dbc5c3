package demo

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/internal/telemetry"
)

// WithTracerProvider makes the server trace every request and
// notification it receives as a server span of the MCP conventions
// ("tools/call add_note", kind SERVER), whose parent is the caller's span
// named by the trace context in the request's params._meta (MCP
// 2026-07-28): the server joins the caller's trace, whatever the
// transport. The spans go to tp. It is how a test shows that mcpbridge's
// trace context reaches a server; without it, or with nil, the server
// traces nothing.
func WithTracerProvider(tp trace.TracerProvider) Option { return func(c *config) { c.tracer = tp } }

// traced adds to s the receiving middleware that traces what it receives.
func traced(s *mcp.Server, tp trace.TracerProvider) {
	tracer := tp.Tracer("github.com/mcpbridge/mcpbridge/internal/demo")
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			params := req.GetParams()
			if params != nil {
				ctx = telemetry.Extract(ctx, params.GetMeta())
			}
			attrs := []attribute.KeyValue{telemetry.MCPMethodName.String(method)}
			target := ""
			if p, ok := params.(*mcp.CallToolParamsRaw); ok {
				target = p.Name
				attrs = append(attrs, telemetry.GenAIToolName.String(p.Name), telemetry.GenAIOperation.String(telemetry.OpExecuteTool))
			}
			if id := req.GetSession().ID(); id != "" {
				attrs = append(attrs, telemetry.MCPSessionID.String(id))
			}
			ctx, span := tracer.Start(ctx, telemetry.Named(method, target), trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError {
				telemetry.Fail(span, telemetry.ErrToolError, "")
			}
			telemetry.End(span, err)
			return res, err
		}
	})
}
