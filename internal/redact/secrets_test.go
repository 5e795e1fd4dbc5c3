package redact_test

import (
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/redact"
)

// Proves which values a Secrets masks: header and environment values of 8
// bytes or more, or 5 with letters and digits (a credential after its
// scheme too), a URL's user info, query values and key-shaped path
// segments, as written or URL-encoded; and what it leaves: short or plain
// values, route words.
func TestSecrets(t *testing.T) {
	s := redact.Secrets{}.
		With("Bearer tok_1234567", "true", "stderr", "s3cr/t+value").
		WithURL("https://ada:pw-9876543@example.com/mcp/zp1a2b3c4d5e6f7g/sse?api_key=q-77665544&v=1")
	for in, want := range map[string]string{
		"Cannot POST /mcp/zp1a2b3c4d5e6f7g/sse?api_key=q-77665544&v=1": "Cannot POST /mcp/…/sse?api_key=…&v=1",
		"Authorization: Bearer tok_1234567 refused":                    "Authorization: … refused",
		"token tok_1234567 expired":                                    "token … expired",
		"user ada, password pw-9876543":                                "user ada, password …",
		"value s3cr/t+value or s3cr%2Ft%2Bvalue or s3cr%2Ft+value":     "value … or … or …",
		"true is not a secret, nor stderr, mcp or sse":                 "true is not a secret, nor stderr, mcp or sse",
	} {
		if got := s.Mask(in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
	if got := (redact.Secrets{}).Mask("anything"); got != "anything" {
		t.Errorf("the zero Secrets masked: %q", got)
	}
	// A secret holding another is masked whole.
	nested := redact.Secrets{}.With("abcdefgh", "abcdefghijkl")
	if got := nested.Mask("x abcdefghijkl y"); got != "x … y" {
		t.Errorf("nested: %q", got)
	}
	if strings.Contains(s.Mask("2025-11-25 and v1"), "…") {
		t.Error("a route word was masked")
	}
}
