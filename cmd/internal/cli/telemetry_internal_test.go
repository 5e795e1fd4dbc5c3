package cli

import "testing"

// Nothing is exported unless a variable asks for it; each signal can be
// turned on or off alone; what cannot be honoured is an error.
func TestExporting(t *testing.T) {
	const endpoint = "OTEL_EXPORTER_OTLP_ENDPOINT"
	for _, c := range []struct {
		env                   map[string]string
		traces, metrics, logs bool
		err                   bool
	}{
		{env: nil},
		{env: map[string]string{"OTEL_SERVICE_NAME": "svc"}},
		{env: map[string]string{endpoint: "http://collector:4318"}, traces: true, metrics: true, logs: true},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, traces: true},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, traces: true},
		{env: map[string]string{endpoint: "http://c", "OTEL_METRICS_EXPORTER": "none"}, traces: true, logs: true},
		{env: map[string]string{"OTEL_LOGS_EXPORTER": "otlp"}, logs: true},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "http://collector:4318/v1/logs"}, logs: true},
		{env: map[string]string{endpoint: "http://c", "OTEL_SDK_DISABLED": "true"}},
		{env: map[string]string{endpoint: "http://c", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}, traces: true, metrics: true, logs: true},
		{env: map[string]string{endpoint: "http://c", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, err: true},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "console"}, err: true},
	} {
		traces, metrics, logs, err := exporting(func(k string) string { return c.env[k] })
		if traces != c.traces || metrics != c.metrics || logs != c.logs || (err != nil) != c.err {
			t.Errorf("%v: traces %v, metrics %v, logs %v, error %v; want %v, %v, %v, error %v", c.env, traces, metrics, logs, err, c.traces, c.metrics, c.logs, c.err)
		}
	}
}
