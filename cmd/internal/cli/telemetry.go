package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/log/global"
	"go.opentelemetry.io/otel/propagation"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mcpbridge/mcpbridge/internal/untrusted"
)

// The command exports its traces, metrics and logs over OTLP/HTTP when the
// standard OpenTelemetry variables ask for it, and nothing otherwise:
//
//   - OTEL_EXPORTER_OTLP_ENDPOINT (or the _TRACES_, _METRICS_ or _LOGS_
//     one) turns export on, to that collector (http://localhost:4318, say);
//   - OTEL_TRACES_EXPORTER, OTEL_METRICS_EXPORTER and OTEL_LOGS_EXPORTER,
//     "otlp" or "none", turn one signal on (to the default endpoint,
//     localhost:4318) or off; the logs are the gateway's audit records
//     (serve);
//   - OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf, the default;
//   - OTEL_SERVICE_NAME names the service (default mcpbridge), and
//     OTEL_RESOURCE_ATTRIBUTES adds to it; OTEL_SDK_DISABLED=true turns
//     everything off;
//   - the exporters read their other variables themselves (headers,
//     timeout, compression, certificates), and the SDK its sampler's.
//
// The providers are installed as OpenTelemetry's global ones, which the
// library's packages use by default; each command runs in a span of its
// own, "mcpbridge call", so that one trace holds all it did.

// telemetryUsage is what the help says of telemetry.
const telemetryUsage = `Telemetry (OpenTelemetry, over OTLP/HTTP; nothing is exported unless asked):
  OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318   export traces, metrics and logs there
  OTEL_SERVICE_NAME, OTEL_TRACES_EXPORTER, OTEL_METRICS_EXPORTER, OTEL_LOGS_EXPORTER (otlp or none),
  OTEL_EXPORTER_OTLP_PROTOCOL (http/protobuf) and the exporters' other variables apply
`

// exportDeadline bounds the export of what is left when the command ends.
const exportDeadline = 5 * time.Second

// startTelemetry installs the exporting providers the environment asks
// for and starts the span of the command c (nil when the arguments name
// none); done ends the span with the exit status and exports what is left.
// Problems are said on stderr, and the command goes on without telemetry.
// A command that a program runs is left to that program, so that the
// command is one trace.
func startTelemetry(ctx context.Context, c *Command, getenv func(string) string, stderr io.Writer) (_ context.Context, done func(code int)) {
	if c != nil && c.program != "" {
		return ctx, func(int) {}
	}
	traces, metrics, logs, err := exporting(getenv)
	if err != nil {
		fmt.Fprintf(stderr, "mcpbridge: telemetry not exported: %v\n", err)
	}
	if !traces && !metrics && !logs {
		return ctx, func(int) {}
	}
	warn := func(err error) { fmt.Fprintf(stderr, "mcpbridge: telemetry: %s\n", untrusted.Line(err.Error())) }
	otel.SetErrorHandler(otel.ErrorHandlerFunc(warn))
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "mcpbridge"), attribute.String("service.version", version)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		warn(err)
	}
	var stops []func(context.Context) error
	if traces {
		if exp, err := otlptracehttp.New(ctx); err != nil {
			warn(err)
		} else {
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
			otel.SetTracerProvider(tp)
			stops = append(stops, tp.Shutdown)
		}
	}
	if metrics {
		if exp, err := otlpmetrichttp.New(ctx); err != nil {
			warn(err)
		} else {
			mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)), sdkmetric.WithResource(res))
			otel.SetMeterProvider(mp)
			stops = append(stops, mp.Shutdown)
		}
	}
	if logs {
		if exp, err := otlploghttp.New(ctx); err != nil {
			warn(err)
		} else {
			lp := sdklog.NewLoggerProvider(sdklog.WithProcessor(sdklog.NewBatchProcessor(exp)), sdklog.WithResource(res))
			global.SetLoggerProvider(lp)
			stops = append(stops, lp.Shutdown)
		}
	}
	name := "mcpbridge"
	if c != nil {
		name += " " + c.Name
	}
	ctx, span := otel.Tracer("github.com/mcpbridge/mcpbridge/cmd/mcpbridge").Start(ctx, name)
	return ctx, func(code int) {
		span.SetAttributes(attribute.Int("process.exit.code", code))
		if code != exitOK {
			span.SetStatus(codes.Error, fmt.Sprintf("exit status %d", code))
		}
		span.End()
		flush, cancel := context.WithTimeout(context.Background(), exportDeadline)
		defer cancel()
		for _, stop := range stops {
			if err := stop(flush); err != nil {
				warn(err)
			}
		}
	}
}

// logsExported reports whether the environment asks to export logs.
func logsExported(getenv func(string) string) bool {
	_, _, logs, _ := exporting(getenv)
	return logs
}

// exporting reads which signals the environment asks to export.
func exporting(getenv func(string) string) (traces, metrics, logs bool, err error) {
	if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") {
		return false, false, false, nil
	}
	endpoint := getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != ""
	signal := func(name string) (bool, error) {
		upper := strings.ToUpper(name)
		on := endpoint || getenv("OTEL_EXPORTER_OTLP_"+upper+"_ENDPOINT") != ""
		switch exporter := getenv("OTEL_" + upper + "_EXPORTER"); exporter {
		case "":
		case "none":
			on = false
		case "otlp":
			on = true
		default:
			return false, fmt.Errorf("OTEL_%s_EXPORTER=%s: only otlp (or none) is supported", upper, exporter)
		}
		protocol := getenv("OTEL_EXPORTER_OTLP_" + upper + "_PROTOCOL")
		if protocol == "" {
			protocol = getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
		}
		if on && protocol != "" && protocol != "http/protobuf" {
			return false, fmt.Errorf("OTLP protocol %s for %s: only http/protobuf is supported", protocol, name)
		}
		return on, nil
	}
	traces, terr := signal("traces")
	metrics, merr := signal("metrics")
	logs, lerr := signal("logs")
	return traces, metrics, logs, cmp.Or(terr, merr, lerr)
}
