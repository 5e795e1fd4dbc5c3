package gateway_test

import (
	"context"
	"testing"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/internal/testing/oteltest"
	"github.com/mcpbridge/mcpbridge/mcptool"
)

// Each request a client sends is a server span, "{method} {target}", in
// the trace whose context the client put in params._meta; the call the
// gateway makes of the server is a client span within it, and a tool's
// failure (isError) is the server span's error.type tool_error. One trace
// runs from the client through the gateway to the server.
func TestTracesARequestFromTheClientToTheServer(t *testing.T) {
	rec := oteltest.New(t)
	a := newUpstream(t, "a")
	g := start(t, []config.Server{a.config(true)}, &gateway.Options{Telemetry: mcptool.Telemetry{Tracer: rec.Traces}})
	url, _ := serve(t, g)
	cs := connect(t, url, versions[0], nil, nil)
	ctx, host := rec.Traces.Tracer("test").Start(t.Context(), "host")
	meta := mcp.Meta{}
	for k, v := range traceContext(ctx) {
		meta[k] = v
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Meta: meta, Name: "a_echo", Arguments: map[string]any{"text": "hi"}}); err != nil {
		t.Fatal(err)
	}
	host.End()
	served := rec.Span(t, "tools/call a_echo")
	if served.SpanKind != trace.SpanKindServer {
		t.Errorf("the gateway's span is of kind %v", served.SpanKind)
	}
	oteltest.ChildOf(t, served, rec.Span(t, "host"))
	oteltest.Has(t, served, map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "a_echo", "gen_ai.operation.name": "execute_tool", "network.transport": "tcp"})
	sent := rec.Span(t, "tools/call echo")
	if sent.SpanKind != trace.SpanKindClient {
		t.Errorf("the call of the server is of kind %v", sent.SpanKind)
	}
	oteltest.ChildOf(t, sent, served)

	// Arguments the gateway refuses make a result marked isError.
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "a_echo", Arguments: map[string]any{"text": 5}})
	if err != nil || !res.IsError {
		t.Fatalf("refused: %v, %v", res, err)
	}
	oteltest.Has(t, rec.Span(t, "tools/call a_echo"), map[string]string{"error.type": "tool_error"})
}

// traceContext is the W3C trace context of ctx, as _meta carries it.
func traceContext(ctx context.Context) map[string]string {
	m := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, m)
	return m
}
