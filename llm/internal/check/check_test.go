package check

import (
	"encoding/json"
	"testing"

	"github.com/mcpbridge/mcpbridge/tool"
)

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
