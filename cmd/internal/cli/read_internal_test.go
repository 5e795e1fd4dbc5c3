package cli

import (
	"strings"
	"testing"
)

// A template's placeholders are named as written, in order; a template
// without any, or with one left open, names none.
func TestPlaceholders(t *testing.T) {
	for tmpl, want := range map[string]string{
		"notes://{id}":                  "{id}",
		"skill://weekly-review/{+path}": "{+path}",
		"a://{x}/b/{y}{?q}":             "{x} {y} {?q}",
		"a://fixed":                     "",
		"a://{unclosed":                 "",
	} {
		if got := strings.Join(placeholders(tmpl), " "); got != want {
			t.Errorf("placeholders(%q) = %q, want %q", tmpl, got, want)
		}
	}
}
