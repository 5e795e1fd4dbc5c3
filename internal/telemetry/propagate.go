package telemetry

import (
	"context"
	"maps"

	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Trace context travels to a server in a request's params._meta, under the
// keys traceparent, tracestate and baggage (MCP 2026-07-28, basic/index
// "OpenTelemetry trace context"; the MCP conventions' "Context
// propagation"), in the W3C Trace Context and Baggage formats whatever
// propagator the host installed globally: the specification fixes the
// format.

// metaCarrier reads and writes a _meta object as a propagation carrier.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

func (m metaCarrier) Set(key, value string) { m[key] = value }

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range maps.Keys(m) {
		keys = append(keys, k)
	}
	return keys
}

// Inject returns meta with the trace context of ctx added: a copy, so that
// a map the caller shares is left alone. With no span context or baggage
// in ctx it returns meta as it is.
func Inject(ctx context.Context, meta map[string]any) map[string]any {
	if !trace.SpanContextFromContext(ctx).IsValid() && baggage.FromContext(ctx).Len() == 0 {
		return meta
	}
	out := make(map[string]any, len(meta)+3)
	maps.Copy(out, meta)
	propagation.TraceContext{}.Inject(ctx, metaCarrier(out))
	propagation.Baggage{}.Inject(ctx, metaCarrier(out))
	return out
}

// Extract returns ctx with the trace context and baggage meta carries, for
// a server that makes the caller's span the parent of its own.
func Extract(ctx context.Context, meta map[string]any) context.Context {
	ctx = propagation.TraceContext{}.Extract(ctx, metaCarrier(meta))
	return propagation.Baggage{}.Extract(ctx, metaCarrier(meta))
}
