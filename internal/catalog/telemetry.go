package catalog

import (
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/telemetry"
)

// WithTracerProvider sets where the spans of the set and of every server's
// provider go ([mcpclient.WithTracerProvider]); nil, the default, is
// OpenTelemetry's global provider. Besides its providers' spans, the set
// makes a validate_arguments span for each call it refuses.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(o *options) { o.tracerProvider = tp }
}

// WithMeterProvider sets where the metrics of the set and of every
// server's provider go ([mcpclient.WithMeterProvider]); nil, the default, is
// OpenTelemetry's global provider.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(o *options) { o.meterProvider = mp }
}

// scope is the instrumentation scope of the set's own spans and metrics.
const scope = "github.com/mcpbridge/mcpbridge/toolset"

// telemetry returns the set's instrumentation, and the options that give
// its providers to every server's.
func (o *options) telemetry() (*telemetry.Telemetry, []mcpclient.Option) {
	return telemetry.New(scope, o.tracerProvider, o.meterProvider),
		[]mcpclient.Option{mcpclient.WithTracerProvider(o.tracerProvider), mcpclient.WithMeterProvider(o.meterProvider)}
}
