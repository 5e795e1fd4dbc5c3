package check

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/tool"
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

// Each definition is encoded with the schema to send, or fails them all.
func TestTools(t *testing.T) {
	for _, tc := range []struct {
		d         tool.Definition
		want, err string
	}{
		{tool.Definition{Name: "f", InputSchema: json.RawMessage(`{"type":"object"}`)}, `{"type":"object"}`, ""},
		{tool.Definition{Name: "f"}, `{"type":"object","properties":{}}`, ""},
		{tool.Definition{Name: "f", InputSchema: json.RawMessage(" \n")}, `{"type":"object","properties":{}}`, ""},
		{tool.Definition{InputSchema: json.RawMessage(`{}`)}, "", "openai: tool definition without a name"},
		{tool.Definition{Name: "f", InputSchema: json.RawMessage(`{"type":`)}, "", `openai: tool "f": input schema is not valid JSON`},
	} {
		got, err := Tools("openai", []tool.Definition{{Name: "ok"}, tc.d}, func(_ tool.Definition, s json.RawMessage) string { return string(s) })
		if tc.err == "" && (err != nil || got[1] != tc.want) || tc.err != "" && (err == nil || err.Error() != tc.err || got != nil) {
			t.Errorf("Tools(%+v) = %q, %v; want [1] %s, %q", tc.d, got, err, tc.want, tc.err)
		}
	}
}
