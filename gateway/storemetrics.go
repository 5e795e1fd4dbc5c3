package gateway

import (
	"context"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// The store's metrics, in the gateway's meter (Options.Telemetry's, else
// OpenTelemetry's global one):
//
//	mcpbridge.gateway.store.up          1 while the store answers, 0 while
//	                                    the per-client limits fall back
//	                                    to each replica's share
//	mcpbridge.gateway.store.changes     the store going down or up, by state
//	mcpbridge.gateway.store.errors      operations failed or timed out, by op
//	mcpbridge.gateway.store.duration    each operation's time, by op: the
//	                                    store's cost per request
const (
	metricStoreUp       = "mcpbridge.gateway.store.up"
	metricStoreChanges  = "mcpbridge.gateway.store.changes"
	metricStoreErrors   = "mcpbridge.gateway.store.errors"
	metricStoreDuration = "mcpbridge.gateway.store.duration"
)

type storeMetrics struct {
	up       atomic.Int64
	changes  metric.Int64Counter
	errors   metric.Int64Counter
	duration metric.Float64Histogram
	gauge    metric.Registration
}

// newStoreMetrics makes the store's instruments in mp (nil: the global
// provider); an instrument that cannot be made is a no-op one.
func newStoreMetrics(mp metric.MeterProvider) *storeMetrics {
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	m := mp.Meter(scope)
	sm := &storeMetrics{}
	sm.up.Store(1)
	sm.changes, _ = m.Int64Counter(metricStoreChanges, metric.WithUnit("{change}"),
		metric.WithDescription("The shared store marked down (state=down) or up again (state=up)."))
	sm.errors, _ = m.Int64Counter(metricStoreErrors, metric.WithUnit("{operation}"),
		metric.WithDescription("Operations on the shared store that failed or passed their timeout, by op."))
	sm.duration, _ = m.Float64Histogram(metricStoreDuration, metric.WithUnit("s"),
		metric.WithDescription("The time of each operation on the shared store, by op."),
		metric.WithExplicitBucketBoundaries(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1))
	up, err := m.Int64ObservableGauge(metricStoreUp, metric.WithUnit("1"),
		metric.WithDescription("1 while the shared store answers; 0 while each replica holds its share of the per-client limits."))
	if err == nil {
		sm.gauge, _ = m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
			o.ObserveInt64(up, sm.up.Load())
			return nil
		}, up)
	}
	return sm
}

func (m *storeMetrics) failed(op string) {
	m.errors.Add(context.Background(), 1, metric.WithAttributes(attribute.String("op", op)))
}

func (m *storeMetrics) took(op string, d time.Duration) {
	m.duration.Record(context.Background(), d.Seconds(), metric.WithAttributes(attribute.String("op", op)))
}

func (m *storeMetrics) changed(up bool) {
	state, v := "down", int64(0)
	if up {
		state, v = "up", 1
	}
	m.up.Store(v)
	m.changes.Add(context.Background(), 1, metric.WithAttributes(attribute.String("state", state)))
}

// close unregisters the gauge's callback.
func (m *storeMetrics) close() {
	if m.gauge != nil {
		_ = m.gauge.Unregister()
	}
}
