package telemetry

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/internal/testing/oteltest"
)

// TestDefaultGlobalProvider checks that a Telemetry of the global provider
// made before the host installs an SDK starts spans that cost nothing
// until it does (the global provider's own no-op spans cost three
// allocations each), and traces once it has, as the global provider
// promises.
func TestDefaultGlobalProvider(t *testing.T) {
	prev := otel.GetTracerProvider()
	tel := New("t", nil, nil)
	if tel.unset == nil {
		t.Fatalf("OpenTelemetry's default global provider, a %T, is not recognised as %s", prev, defaultGlobal)
	}
	ctx := context.Background()
	allocs := testing.AllocsPerRun(100, func() {
		_, span := tel.Start(ctx, "before", trace.SpanKindClient)
		span.End()
	})
	if allocs != 0 {
		t.Errorf("a span started while no SDK is installed allocates %v times; want 0", allocs)
	}
	rec := oteltest.New(t)
	otel.SetTracerProvider(rec.Traces)
	defer otel.SetTracerProvider(prev)
	_, span := tel.Start(ctx, "after", trace.SpanKindClient)
	span.End()
	if got := oteltest.Names(rec.Spans()); len(got) != 1 || got[0] != "after" {
		t.Errorf("spans once the SDK is installed: %v; want [after]", got)
	}
}
