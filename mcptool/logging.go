package mcptool

import (
	"context"
	"log/slog"
)

// debugOnly passes a logger's records on at debug level whatever level they
// were made at. go-sdk logs errors that quote what a server sent (an error
// message, a tool name) at warning level; a server's words must not reach a
// log above debug.
type debugOnly struct{ slog.Handler }

func (h debugOnly) Enabled(ctx context.Context, _ slog.Level) bool {
	return h.Handler.Enabled(ctx, slog.LevelDebug)
}

func (h debugOnly) Handle(ctx context.Context, r slog.Record) error {
	r.Level = slog.LevelDebug
	return h.Handler.Handle(ctx, r)
}

func (h debugOnly) WithAttrs(attrs []slog.Attr) slog.Handler {
	return debugOnly{h.Handler.WithAttrs(attrs)}
}

func (h debugOnly) WithGroup(name string) slog.Handler {
	return debugOnly{h.Handler.WithGroup(name)}
}
