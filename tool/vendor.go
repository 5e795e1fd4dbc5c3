package tool

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mcpbridge/mcpbridge/internal/toolschema"
	"github.com/mcpbridge/mcpbridge/schema"
)

// VendorJSON returns defs as vendor v's API takes the tools of a request:
// for OpenAI, function tools ({"type": "function", "function": {...}},
// with "strict": true where the definition is Strict); for Anthropic,
// tools with an "input_schema"; for Gemini, one object of
// "functionDeclarations" (without "parameters" for a tool that takes no
// arguments, which Gemini refuses as an empty object). Names and schemas
// go as they are, each schema byte for byte: make them the vendor's first,
// as a toolset's catalog is ([schema.Lower]; [schema.Lint] names what a
// vendor refuses).
func VendorJSON(v schema.Vendor, defs []Definition) (json.RawMessage, error) {
	type function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
		Strict      bool            `json:"strict,omitempty"`
	}
	type anthropicTool struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	type openAITool struct {
		Type     string   `json:"type"`
		Function function `json:"function"`
	}
	tools := make([]any, 0, len(defs))
	for _, d := range defs {
		in := d.InputSchema
		if len(in) == 0 {
			in = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		switch v {
		case schema.OpenAI:
			tools = append(tools, openAITool{"function", function{d.Name, d.Description, in, d.Strict}})
		case schema.Anthropic:
			tools = append(tools, anthropicTool{d.Name, d.Description, in})
		case schema.Gemini:
			f := function{Name: d.Name, Description: d.Description}
			if !toolschema.NoArguments(in) {
				f.Parameters = in
			}
			tools = append(tools, f)
		default:
			return nil, fmt.Errorf("tool: unknown vendor %q (want openai, anthropic or gemini)", string(v))
		}
	}
	var out any = tools
	if v == schema.Gemini {
		out = []map[string]any{{"functionDeclarations": tools}}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // a description's <, > and & as written
	if err := enc.Encode(out); err != nil {
		return nil, fmt.Errorf("tool: %s tools: %w", v, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
