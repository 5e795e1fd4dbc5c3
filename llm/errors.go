package llm

import (
	"fmt"
	"net/http"
	"strings"
)

// An APIError is a vendor API's answer with an HTTP error status. It names
// the vendor and the status, and carries the vendor's error type, code and
// message. Its text never holds the request URL or headers (they may hold a
// key), and its message is scrubbed of anything that looks like a key,
// because vendors echo a rejected key back, in part, in the message.
//
// Use errors.As to read it. Err is the vendor SDK's own error, for a caller
// that needs more; it holds the request and response, so do not log it whole.
type APIError struct {
	// Vendor names the API: "openai" or "anthropic" (an OpenAI-compatible
	// server is "openai").
	Vendor string
	// StatusCode is the HTTP status.
	StatusCode int
	// Type is the vendor's error type ("invalid_request_error",
	// "rate_limit_error", ...), if it said one.
	Type string
	// Code is the vendor's machine-readable code, if it said one.
	Code string
	// Message is the vendor's human-readable explanation, scrubbed of keys.
	Message string
	// Err is the vendor SDK's error.
	Err error
}

// Error says vendor, status, type, code and message, in that order, so a log
// line reads from the general to the particular.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: HTTP %d", e.Vendor, e.StatusCode)
	if text := http.StatusText(e.StatusCode); text != "" {
		b.WriteString(" " + text)
	}
	for _, s := range []string{e.Type, e.Code, e.Message} {
		if s != "" {
			b.WriteString(": " + s)
		}
	}
	return b.String()
}

// Unwrap returns the vendor SDK's error.
func (e *APIError) Unwrap() error { return e.Err }

// Retryable reports whether sending the same request again later may
// succeed: a rate limit, a timeout, an overloaded or failing server.
func (e *APIError) Retryable() bool {
	switch e.StatusCode {
	case http.StatusRequestTimeout, http.StatusConflict, http.StatusTooManyRequests:
		return true
	}
	return e.StatusCode >= 500
}
