package redact_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/redact"
)

func TestURL(t *testing.T) {
	for raw, want := range map[string]string{
		"https://example.com":                      "https://example.com",
		"https://example.com/":                     "https://example.com",
		"https://example.com/mcp?api_key=s3cret":   "https://example.com/…",
		"http://127.0.0.1:8080/mcp/s3cret/sse":     "http://127.0.0.1:8080/…",
		"https://user:s3cret@example.com/mcp":      "https://…@example.com/…",
		"https://s3cret@example.com":               "https://…@example.com",
		"https://example.com/#access_token=s3cret": "https://example.com/…",
		"HTTPS://Example.com?x=s3cret":             "https://Example.com/…",
		"http://[::1]:9/?k=s3cret":                 "http://[::1]:9/…",
		"/message?sessionid=s3cret":                "…",
		"mailto:s3cret@example.com":                "…",
		"http://bad host/?k=s3cret":                "…",
	} {
		got := redact.URL(raw)
		if got != want {
			t.Errorf("URL(%q) = %q, want %q", raw, got, want)
		}
		if strings.Contains(got, "s3cret") {
			t.Errorf("URL(%q) kept the secret", raw)
		}
	}
}

func TestURLs(t *testing.T) {
	for text, want := range map[string]string{
		`Post "http://127.0.0.1:1/mcp?api_key=s3cret": dial tcp: connection refused`: `Post "http://127.0.0.1:1/…": dial tcp: connection refused`,
		"no URL here": "no URL here",
		"two: https://a/?k=s3cret and HTTP://b:8/x": "two: https://a/… and http://b:8/…",
		"to http://a:8, then (http://b/?k=s3cret).": "to http://a:8, then (http://b/…).",
		"<https://a/?k=s3cret>":                     "<https://a/…>",
	} {
		if got := redact.URLs(text); got != want {
			t.Errorf("URLs(%q) = %q, want %q", text, got, want)
		}
	}
}

func ExampleURL() {
	fmt.Println(redact.URL("https://user:pw@example.com/mcp?api_key=s3cret"))
	// Output: https://…@example.com/…
}
