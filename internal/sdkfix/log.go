package sdkfix

import (
	"context"
	"log/slog"

	"github.com/mcpbridge/mcpbridge/internal/redact"
)

// DebugOnly returns a handler for go-sdk's logger that passes its records
// on to h at debug level whatever level they were made at, with every URL
// in their text redacted and each of secrets masked. go-sdk logs what a
// server sent (a Content-Type header, an error message) at warning level,
// and a server's words must not reach a log above debug, nor the secrets
// the host gave it that they may echo; it also quotes the URLs it
// requested, which may carry a key.
func DebugOnly(h slog.Handler, secrets redact.Secrets) slog.Handler {
	return debugOnly{h, secrets}
}

type debugOnly struct {
	slog.Handler
	secrets redact.Secrets
}

func (h debugOnly) Enabled(ctx context.Context, _ slog.Level) bool {
	return h.Handler.Enabled(ctx, slog.LevelDebug)
}

func (h debugOnly) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, slog.LevelDebug, h.redact(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.redactAttr(a))
		return true
	})
	return h.Handler.Handle(ctx, out)
}

func (h debugOnly) WithAttrs(attrs []slog.Attr) slog.Handler {
	redacted := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		redacted[i] = h.redactAttr(a)
	}
	return debugOnly{h.Handler.WithAttrs(redacted), h.secrets}
}

func (h debugOnly) WithGroup(name string) slog.Handler {
	return debugOnly{h.Handler.WithGroup(name), h.secrets}
}

// redact is text with its URLs redacted and h's secrets masked.
func (h debugOnly) redact(text string) string { return redact.URLs(h.secrets.Mask(text)) }

// redactAttr redacts the text of a, a group's members included.
func (h debugOnly) redactAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.redact(v.String()))
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, h.redact(err.Error()))
		}
	case slog.KindGroup:
		group := v.Group()
		members := make([]any, len(group))
		for i, m := range group {
			members[i] = h.redactAttr(m)
		}
		return slog.Group(a.Key, members...)
	}
	return slog.Attr{Key: a.Key, Value: v}
}
