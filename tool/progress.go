package tool

import (
	"context"

	"github.com/mcpbridge/mcpbridge/internal/ctxkey"
)

// Progress is what a tool reported of a call still running: an MCP server's
// progress notification, say.
type Progress struct {
	// Progress is how far the call has come; it grows with each report.
	Progress float64
	// Total is what Progress reaches when the call is done, or 0 if
	// unknown.
	Total float64
	// Message says what is being done, if anything. A server wrote it:
	// clean it before showing it to a person.
	Message string
}

var progressKey = ctxkey.New[func(Progress)]("tool progress")

// WithProgress returns a copy of ctx carrying fn, which a [Handler] given
// it calls with each report of progress on the call ([ProgressFunc]): a
// host shows a long call's progress by calling with such a context. fn may
// be called from another goroutine than the call's, until the call returns;
// it must not block.
func WithProgress(ctx context.Context, fn func(Progress)) context.Context {
	return progressKey.With(ctx, fn)
}

// ProgressFunc returns the function ctx carries to report a call's
// progress to ([WithProgress]), or nil: a handler that learns of progress
// reports it there, and need not ask for progress when it is nil.
func ProgressFunc(ctx context.Context) func(Progress) { return progressKey.Value(ctx) }
