package tool_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpbridge/mcpbridge/schema"
	"github.com/mcpbridge/mcpbridge/tool"
)

// Each vendor's wire format of a list of tools, schemas byte for byte (the
// keywords in their order), descriptions with <, > and & as written, and
// Gemini's tool without arguments without parameters; an unknown vendor
// is refused.
func TestVendorJSON(t *testing.T) {
	defs := []tool.Definition{
		{Name: "find", Description: "Finds <b> & more.", InputSchema: json.RawMessage(`{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"}}}`), Strict: true},
		{Name: "now", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
	}
	for v, want := range map[schema.Vendor]string{
		schema.OpenAI:    `[{"type":"function","function":{"name":"find","description":"Finds <b> & more.","parameters":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"}}},"strict":true}},{"type":"function","function":{"name":"now","parameters":{"type":"object","properties":{}}}}]`,
		schema.Anthropic: `[{"name":"find","description":"Finds <b> & more.","input_schema":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"}}}},{"name":"now","input_schema":{"type":"object","properties":{}}}]`,
		schema.Gemini:    `[{"functionDeclarations":[{"name":"find","description":"Finds <b> & more.","parameters":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"}}}},{"name":"now"}]}]`,
	} {
		got, err := tool.VendorJSON(v, defs)
		if err != nil || string(got) != want {
			t.Errorf("%s:\n got %s, %v\nwant %s", v, got, err, want)
		}
	}
	if _, err := tool.VendorJSON("mistral", defs); err == nil {
		t.Error("an unknown vendor accepted")
	}
}
