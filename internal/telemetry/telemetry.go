package telemetry

import (
	"context"
	"reflect"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// A Telemetry is one package's tracer and instruments. A nil *Telemetry is
// valid and records nothing: it is what [New] returns when both providers
// are no-ops.
type Telemetry struct {
	tracer trace.Tracer
	// unset is OpenTelemetry's default global provider when tracer is
	// its and no SDK was installed yet: until the host installs one, the
	// spans it starts are no-ops whose making costs allocations, which
	// Start spares.
	unset trace.TracerProvider
	// kinds are the options of a span of each kind without attributes,
	// made once: a span started while nothing records costs no
	// allocation of options.
	kinds [trace.SpanKindConsumer + 1][]trace.SpanStartOption
	// Operation is mcp.client.operation.duration, Session
	// mcp.client.session.duration, both in seconds with the conventions'
	// buckets.
	Operation, Session metric.Float64Histogram
	// Reconnects, Resends and Refusals count rebuilt connections, tool
	// calls sent again, and calls refused before they ran.
	Reconnects, Resends, Refusals metric.Int64Counter
}

// durationBuckets are the bucket boundaries, in seconds, the conventions
// give the MCP duration histograms.
func durationBuckets() []float64 {
	return []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}
}

// New returns the telemetry of the package scope (its import path) from
// tp and mp; nil means OpenTelemetry's global provider, which forwards to
// whatever the host installs, even later. It returns nil when tp and mp are
// both no-op providers (of packages trace/noop and metric/noop): the
// instrumentation is then skipped entirely.
func New(scope string, tp trace.TracerProvider, mp metric.MeterProvider) *Telemetry {
	_, noTraces := tp.(tracenoop.TracerProvider)
	_, noMetrics := mp.(metricnoop.MeterProvider)
	if noTraces && noMetrics {
		return nil
	}
	var unset trace.TracerProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
		if reflect.TypeOf(tp).String() == defaultGlobal {
			unset = tp
		}
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	m := mp.Meter(scope, metric.WithSchemaURL(schemaURL))
	t := &Telemetry{tracer: tp.Tracer(scope, trace.WithSchemaURL(schemaURL)), unset: unset}
	for kind := range t.kinds {
		t.kinds[kind] = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKind(kind))}
	}
	// An instrument that cannot be made is a no-op one; the API returns
	// one alongside the error.
	t.Operation, _ = m.Float64Histogram(MetricOperationDuration, metric.WithUnit("s"),
		metric.WithDescription("The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received."),
		metric.WithExplicitBucketBoundaries(durationBuckets()...))
	t.Session, _ = m.Float64Histogram(MetricSessionDuration, metric.WithUnit("s"),
		metric.WithDescription("The duration of the MCP session as observed on the MCP client."),
		metric.WithExplicitBucketBoundaries(durationBuckets()...))
	t.Reconnects, _ = m.Int64Counter(MetricReconnects, metric.WithUnit("{reconnect}"),
		metric.WithDescription("Lost connections to MCP servers rebuilt, or given up on (with error.type)."))
	t.Resends, _ = m.Int64Counter(MetricResends, metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls sent again after their exchange with the server was lost."))
	t.Refusals, _ = m.Int64Counter(MetricRefusals, metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls refused before they ran, by mcpbridge.refusal.reason."))
	return t
}

// defaultGlobal is the type of the global tracer provider OpenTelemetry
// starts with, which forwards to the provider the host installs once it
// does (TestDefaultGlobalProvider fails if it is renamed).
const defaultGlobal = "*global.tracerProvider"

// Start starts a span of the given kind as a child of the span in ctx. On
// a nil Telemetry, or one of the global provider while the host has
// installed none, it returns ctx and a span that records nothing.
func (t *Telemetry) Start(ctx context.Context, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	if t == nil || t.unset != nil && otel.GetTracerProvider() == t.unset {
		return ctx, tracenoop.Span{}
	}
	if len(attrs) == 0 {
		return t.tracer.Start(ctx, name, t.kinds[kind]...)
	}
	return t.tracer.Start(ctx, name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
}

// Inherit starts a span with the tracer provider of the recording span in
// ctx, or else OpenTelemetry's global one: for a package with no provider
// setting of its own whose work runs within another's (an OAuth token
// request within an MCP request), so that its spans go where the caller's
// go.
func Inherit(ctx context.Context, scope, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	tp := otel.GetTracerProvider()
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		tp = span.TracerProvider()
	}
	return tp.Tracer(scope, trace.WithSchemaURL(schemaURL)).Start(ctx, name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
}

// Named returns name followed by target, as span names are ("tools/call
// get_weather"), or name alone when there is no target.
func Named(name, target string) string {
	if target == "" {
		return name
	}
	return name + " " + target
}

// End ends span with the outcome err: nothing more for none; else
// error.type ([ErrorType]) and an error status whose description is the
// error's text, cut and scrubbed ([Content]).
func End(span trace.Span, err error) {
	if err != nil && span.IsRecording() {
		Fail(span, ErrorType(err), err.Error())
	}
	span.End()
}

// Fail marks span as failed with error.type errType and the status
// description why, cut and scrubbed.
func Fail(span trace.Span, errType, why string) {
	span.SetAttributes(ErrorTypeKey.String(errType))
	span.SetStatus(codes.Error, Content(why))
}

// Count adds one to c, if the instrument is enabled.
func Count(ctx context.Context, c metric.Int64Counter, attrs ...attribute.KeyValue) {
	if c != nil && c.Enabled(ctx) {
		c.Add(ctx, 1, metric.WithAttributes(attrs...))
	}
}

// Seconds records, in h, the time since start.
func Seconds(ctx context.Context, h metric.Float64Histogram, start time.Time, attrs ...attribute.KeyValue) {
	h.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(attrs...))
}

// Refused records a call refused before it ran: a span named for the check
// that refused it ([SpanValidate] for the arguments, [SpanPolicy] for a
// policy), which only a refusal makes, and one more refusal counted.
func (t *Telemetry) Refused(ctx context.Context, toolName, reason string, err error) {
	if t == nil {
		return
	}
	name := SpanValidate
	if reason == RefusedPolicy {
		name = SpanPolicy
	}
	_, span := t.Start(ctx, Named(name, toolName), trace.SpanKindInternal,
		GenAIToolName.String(toolName), RefusalReason.String(reason))
	End(span, err)
	Count(ctx, t.Refusals, GenAIToolName.String(toolName), RefusalReason.String(reason))
}
