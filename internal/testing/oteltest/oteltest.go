// Package oteltest records what mcpbridge's instrumentation emits, in
// memory, for tests: an OpenTelemetry SDK tracer provider whose spans are
// kept as they end, and an SDK meter provider read on demand. It is for
// tests only; library packages never import the SDK.
//
// Options: none; [New] takes the test alone.
package oteltest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// A Recorder is a tracer provider and a meter provider that keep what they
// are given. Hand Traces and Metrics to what is tested.
type Recorder struct {
	Traces  *sdktrace.TracerProvider
	Metrics *sdkmetric.MeterProvider
	spans   *tracetest.InMemoryExporter
	reader  *sdkmetric.ManualReader
}

// New returns a Recorder, shut down when the test ends. Every span is
// sampled and kept as soon as it ends.
func New(t testing.TB) *Recorder {
	r := &Recorder{spans: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader()}
	r.Traces = sdktrace.NewTracerProvider(sdktrace.WithSyncer(r.spans))
	r.Metrics = sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader))
	t.Cleanup(func() {
		r.Traces.Shutdown(context.Background())
		r.Metrics.Shutdown(context.Background())
	})
	return r
}

// Spans returns the spans that ended, in the order they ended.
func (r *Recorder) Spans() tracetest.SpanStubs { return r.spans.GetSpans() }

// Named returns the ended spans called name.
func (r *Recorder) Named(name string) tracetest.SpanStubs {
	var out tracetest.SpanStubs
	for _, s := range r.Spans() {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// Span returns the last ended span called name, failing the test if none
// ended.
func (r *Recorder) Span(t testing.TB, name string) tracetest.SpanStub {
	t.Helper()
	spans := r.Named(name)
	if len(spans) == 0 {
		t.Fatalf("no span %q among %v", name, Names(r.Spans()))
	}
	return spans[len(spans)-1]
}

// Names returns the names of spans.
func Names(spans tracetest.SpanStubs) []string {
	names := make([]string, len(spans))
	for i, s := range spans {
		names[i] = s.Name
	}
	return names
}

// Attrs returns a span's attributes by key, each value as text.
func Attrs(s tracetest.SpanStub) map[string]string { return texts(s.Attributes) }

func texts(kvs []attribute.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.Emit()
	}
	return m
}

// Has fails the test unless s has each attribute of want with its value.
func Has(t testing.TB, s tracetest.SpanStub, want map[string]string) {
	t.Helper()
	got := Attrs(s)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("span %q: %s = %q, want %q (all: %v)", s.Name, k, got[k], v, got)
		}
	}
}

// ChildOf fails the test unless child's parent is parent, in one trace.
func ChildOf(t testing.TB, child, parent tracetest.SpanStub) {
	t.Helper()
	if child.Parent.SpanID() != parent.SpanContext.SpanID() || child.SpanContext.TraceID() != parent.SpanContext.TraceID() {
		t.Errorf("span %q is not a child of %q", child.Name, parent.Name)
	}
}

// A Point is one data point of a metric: its attributes, as text, and its
// value (a histogram's count of measurements, a counter's sum).
type Point struct {
	Attrs map[string]string
	Value int64
}

func (p Point) String() string { return fmt.Sprintf("%d %v", p.Value, p.Attrs) }

// Points collects the metric called name and returns its data points.
func (r *Recorder) Points(t testing.TB, name string) []Point {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var out []Point
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			switch data := m.Data.(type) {
			case metricdata.Histogram[float64]:
				for _, dp := range data.DataPoints {
					out = append(out, Point{texts(dp.Attributes.ToSlice()), int64(dp.Count)})
				}
			case metricdata.Sum[int64]:
				for _, dp := range data.DataPoints {
					out = append(out, Point{texts(dp.Attributes.ToSlice()), dp.Value})
				}
			}
		}
	}
	return out
}

// Point returns the data point of the metric called name whose attributes
// include want, failing the test if there is none.
func (r *Recorder) Point(t testing.TB, name string, want map[string]string) Point {
	t.Helper()
	points := r.Points(t, name)
	i := slices.IndexFunc(points, func(p Point) bool {
		for k, v := range want {
			if p.Attrs[k] != v {
				return false
			}
		}
		return true
	})
	if i < 0 {
		t.Fatalf("metric %s: no point with %v among %v", name, want, points)
	}
	return points[i]
}

// SpanContext returns a valid span context, sampled, for a test that needs
// a trace to propagate without a provider.
func SpanContext() trace.SpanContext {
	return trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:     trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
		TraceFlags: trace.FlagsSampled,
	})
}
