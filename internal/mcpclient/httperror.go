package mcpclient

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/redact"
	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
)

// An HTTPError says that the server, or a proxy or gateway before it,
// answered an HTTP request with no MCP message: a status other than
// success whose body is no JSON-RPC error, or a successful body MCP does
// not use (a web page, JSON that is no JSON-RPC message). It is the Err of
// a [TransportError], whose methods say what it means:
//
//   - 408, 429, 503 (and 502, 504 but on a tools/call): Retryable; the
//     request was not served, and may be after a while (RetryAfter, if the
//     response said, which a provider that reconnects waits for within its
//     bounds).
//   - 502 or 504 answering a tools/call: OutcomeUnknown, as a gateway may
//     answer so after the server ran the call.
//   - anything else (400, 401 and 403 without OAuth, 404, 405, 415, 500, a
//     body MCP does not use): Fatal.
//
// A 401 or 403 when [WithOAuth] is set goes to the OAuth handler, and a 404
// of a request in a session the server forgot rebuilds the connection
// ([mcp.ErrSessionMissing]): neither is an HTTPError. The text names the
// status and, for a body MCP does not use, its Content-Type, with a hint
// where one helps; it never holds the URL's path or query, and of the body
// at most the start of a line of plain text.
type HTTPError struct {
	// StatusCode is the response's HTTP status code.
	StatusCode int
	// ContentType is the media type of a successful body MCP does not use
	// ("none" if none was given), or "" when the status is what failed.
	ContentType string
	// RetryAfter is the wait a 429 or 503 asked for (Retry-After), or 0.
	RetryAfter time.Duration

	want       string // what MCP answers with, for a ContentType
	notJSONRPC bool   // the body was JSON, but no JSON-RPC message
	said       string // the start of the body, fit to print
	hint       string
}

// snippetRunes bounds what an HTTPError quotes of the body.
const snippetRunes = 80

// hintEndpoint is the hint for an answer that is not MCP's.
const hintEndpoint = "is this the server's MCP endpoint?"

func (e *HTTPError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	switch {
	case e.notJSONRPC:
		b.WriteString(" with JSON that is no JSON-RPC message")
	case e.ContentType != "":
		fmt.Fprintf(&b, " with Content-Type %s, where MCP answers with %s", e.ContentType, e.want)
	}
	if e.said != "" {
		fmt.Fprintf(&b, " (%q)", e.said)
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, " (retry after %v)", e.RetryAfter)
	}
	if e.hint != "" {
		b.WriteString(": " + e.hint)
	}
	return b.String()
}

// refused is the TransportError of a request the tap refused (ref), op
// naming the request.
func refused(server, op string, ref *sdkfix.Refusal) *TransportError {
	he := &HTTPError{StatusCode: ref.Status, notJSONRPC: ref.NotJSONRPC, want: ref.Want}
	if ref.Status == http.StatusTooManyRequests || ref.Status == http.StatusServiceUnavailable {
		he.RetryAfter = ref.RetryAfter // what it means elsewhere is not a wait
	}
	if ref.Status >= 200 && ref.Status < 300 {
		he.ContentType = ref.ContentType
		if he.ContentType == "" {
			he.ContentType = "none"
		}
	}
	if len(ref.Body) > 0 {
		// Plain text or JSON only: the start of its first line, as a
		// server's words (no escape sequence), without a URL's path.
		line, _, _ := strings.Cut(strings.TrimSpace(string(ref.Body)), "\n")
		// Not markup, whatever its Content-Type, nor the status again
		// ("404 page not found").
		status := strings.ToLower(http.StatusText(ref.Status))
		if !strings.HasPrefix(line, "<") && (status == "" || !strings.Contains(strings.ToLower(line), status)) {
			he.said = redact.URLs(untrusted.Cut(untrusted.Line(line), snippetRunes))
		}
	}
	te := &TransportError{Server: server, Op: op, Err: he}
	call := strings.HasPrefix(op, "tools/call")
	switch ref.Status {
	case http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusServiceUnavailable:
		te.retryable = true
	case http.StatusBadGateway, http.StatusGatewayTimeout:
		if call {
			te.outcomeUnknown = true
			he.hint = "a gateway before the server answered, perhaps after the server ran the call: whether the tool ran is unknown"
		} else {
			te.retryable = true
		}
	case http.StatusNotFound:
		he.hint = "nothing answers at the URL's path; an MCP server is most often at /mcp (streamable HTTP) or /sse (SSE)"
	case http.StatusUnauthorized, http.StatusForbidden:
		he.hint = "the server asks for authorization, and no OAuth is configured"
	case http.StatusMethodNotAllowed, http.StatusUnsupportedMediaType:
		he.hint = hintEndpoint
	default:
		if he.ContentType != "" || he.notJSONRPC {
			he.hint = hintEndpoint
		}
	}
	return te
}

// notePath says, for a refusal of a URL without a path that puts the
// endpoint in doubt (a 404, a web page), that the URL has none
// ([pathNote]).
func (e *HTTPError) notePath() {
	switch {
	case e.StatusCode == http.StatusNotFound:
		e.hint = pathNote
	case e.hint == hintEndpoint:
		e.hint += " (" + pathNote + ")"
	}
}

// retryAfter returns the wait the HTTP response that failed err asked
// for, or 0.
func retryAfter(err error) time.Duration {
	var he *HTTPError
	if errors.As(err, &he) {
		return he.RetryAfter
	}
	return 0
}
