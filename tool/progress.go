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

// WithProgress returns a copy of ctx carrying fn, which a [Handler] given
// it calls with each report of progress on the call (an MCP server's
// progress notifications): a host shows a long call's progress by calling
// with such a context. fn may be called from another goroutine than the
// call's, until the call returns; it must not block.
func WithProgress(ctx context.Context, fn func(Progress)) context.Context {
	// By its type, which package mcptool reads (ctxkey.Value).
	return ctxkey.With(ctx, fn)
}
