package telemetry

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
)

// The keys of the IDs a log record carries while a span is active.
const (
	LogTraceID = "trace_id"
	LogSpanID  = "span_id"
)

// LogHandler returns h with [LogTraceID] and [LogSpanID] added to every
// record logged with a context holding a valid span (the ...Context
// methods of slog.Logger), so a log line can be found from its trace and
// the other way round. It wraps h once: given a handler it made, it
// returns that one.
func LogHandler(h slog.Handler) slog.Handler {
	if _, ok := h.(logHandler); ok {
		return h
	}
	return logHandler{h}
}

type logHandler struct{ slog.Handler }

func (h logHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r = r.Clone()
		r.AddAttrs(slog.String(LogTraceID, sc.TraceID().String()), slog.String(LogSpanID, sc.SpanID().String()))
	}
	return h.Handler.Handle(ctx, r)
}

func (h logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return logHandler{h.Handler.WithAttrs(attrs)}
}

func (h logHandler) WithGroup(name string) slog.Handler {
	return logHandler{h.Handler.WithGroup(name)}
}

// Logger returns the logger a library type uses: l with [LogHandler]'s ids
// or, for nil, slog.Default() (as it is at the call) passed only warnings
// and errors. A caller who gave no logger is still told what went wrong (a
// server left out, a tool dropped), as the standard library's servers log
// through the log package, and nothing of what went right.
func Logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		l = slog.New(warnings{slog.Default().Handler()})
	}
	return slog.New(LogHandler(l.Handler()))
}

// warnings passes on what is logged at warn level or above.
type warnings struct{ slog.Handler }

func (h warnings) Enabled(ctx context.Context, level slog.Level) bool {
	return level >= slog.LevelWarn && h.Handler.Enabled(ctx, level)
}

func (h warnings) WithAttrs(attrs []slog.Attr) slog.Handler {
	return warnings{h.Handler.WithAttrs(attrs)}
}

func (h warnings) WithGroup(name string) slog.Handler { return warnings{h.Handler.WithGroup(name)} }
