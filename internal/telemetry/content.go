package telemetry

import (
	"github.com/mcpbridge/mcpbridge/internal/redact"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
)

// MaxContent is how many characters (runes) of a recorded text a span
// keeps: a tool call's arguments or result (recorded only when the host
// opts in) and an error's description.
const MaxContent = 4096

// Content is s as a span records it, as errors are shown: anything shaped
// like an API key replaced by "***", URLs shown by scheme and host only,
// terminal escapes and invisible characters removed, and cut to
// [MaxContent] characters.
func Content(s string) string {
	return untrusted.Cut(untrusted.Text(redact.URLs(redact.Scrub(s))), MaxContent)
}
