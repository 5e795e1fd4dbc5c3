package check

import (
	"strings"
	"testing"
)

func TestNew(t *testing.T) {
	for _, tc := range []struct {
		model, base string
		max         int
		want        string
	}{
		{"m", "", 0, ""},
		{"m", "http://localhost:11434/v1", 10, ""},
		{"", "", 0, "openai: empty model name"},
		{"m", "", -1, "openai: max tokens -1 is negative"},
		{"m", "localhost:11434", 0, `openai: base URL "localhost:11434" is not an http(s) URL`},
		{"m", "ftp://h", 0, "not an http(s) URL"},
	} {
		err := New("openai", tc.model, tc.max, tc.base)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("New(%q, %d, %q) = %v, want %q", tc.model, tc.max, tc.base, err, tc.want)
		}
	}
}
