package sdkfix

import (
	"context"
	"log/slog"

	"github.com/mcpbridge/mcpbridge/internal/redact"
)

// DebugOnly returns a handler for go-sdk's logger that passes its records
// on to h at debug level whatever level they were made at, with every URL
// in their text redacted. go-sdk logs what a server sent (a Content-Type
// header, an error message) at warning level, and a server's words must
// not reach a log above debug; it also quotes the URLs it requested, which
// may carry a key.
func DebugOnly(h slog.Handler) slog.Handler { return debugOnly{h} }

type debugOnly struct{ slog.Handler }

func (h debugOnly) Enabled(ctx context.Context, _ slog.Level) bool {
	return h.Handler.Enabled(ctx, slog.LevelDebug)
}

func (h debugOnly) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, slog.LevelDebug, redact.URLs(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(redactAttr(a))
		return true
	})
	return h.Handler.Handle(ctx, out)
}

func (h debugOnly) WithAttrs(attrs []slog.Attr) slog.Handler {
	redacted := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		redacted[i] = redactAttr(a)
	}
	return debugOnly{h.Handler.WithAttrs(redacted)}
}

func (h debugOnly) WithGroup(name string) slog.Handler {
	return debugOnly{h.Handler.WithGroup(name)}
}

// redactAttr redacts the URLs in the text of a, a group's members included.
func redactAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, redact.URLs(v.String()))
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, redact.URLs(err.Error()))
		}
	case slog.KindGroup:
		group := v.Group()
		members := make([]any, len(group))
		for i, m := range group {
			members[i] = redactAttr(m)
		}
		return slog.Group(a.Key, members...)
	}
	return slog.Attr{Key: a.Key, Value: v}
}
