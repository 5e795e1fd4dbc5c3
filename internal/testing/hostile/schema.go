package hostile

import (
	"encoding/json"
	"fmt"
	"strings"
)

// CyclicTools are the tools of the "schema-cycles" mode whose input schema
// no validation could finish on, by name: each applies itself to the same
// value again without ever descending into it, one way per tool, or
// applies 2^20 subschemas to it.
var CyclicTools = map[string]json.RawMessage{
	"self_ref":    json.RawMessage(`{"type":"object","$ref":"#"}`),
	"defs_cycle":  json.RawMessage(`{"type":"object","$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}}}`),
	"all_of":      json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"allOf":[{"$ref":"#"}]}`),
	"any_of":      json.RawMessage(`{"type":"object","anyOf":[{"type":"string"},{"$ref":"#"}]}`),
	"dynamic_ref": json.RawMessage(`{"$id":"https://example.com/t","$dynamicAnchor":"node","type":"object","allOf":[{"$dynamicRef":"#node"}]}`),
	"doubling":    doubling(20),
}

// doubling is a schema of n definitions, each applying the next twice.
func doubling(n int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"type":"object","$ref":"#/$defs/d0","$defs":{`)
	for i := range n {
		fmt.Fprintf(&b, `"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]},`, i, i+1, i+1)
	}
	fmt.Fprintf(&b, `"d%d":{"type":"object"}}}`, n)
	return json.RawMessage(b.String())
}

// OutputCycle is the tool of the "schema-cycles" mode whose output schema no
// validation could finish on; its calls answer structured content.
var OutputCycle = map[string]any{
	"name":         "out_cycle",
	"inputSchema":  map[string]any{"type": "object"},
	"outputSchema": json.RawMessage(`{"type":"object","$ref":"#"}`),
}

// schemaCycles lists echo, OutputCycle and every tool of CyclicTools; a call
// to out_cycle answers {"a": 1} as structured content.
func schemaCycles(_ *Server, req *Request) (string, bool) {
	switch req.Method {
	case "tools/list":
		tools := []any{Echo, OutputCycle}
		for _, name := range []string{"self_ref", "defs_cycle", "all_of", "any_of", "dynamic_ref", "doubling"} {
			tools = append(tools, map[string]any{"name": name, "inputSchema": CyclicTools[name]})
		}
		return Result(req.ID, map[string]any{"tools": tools}), true
	case "tools/call":
		if name, _ := CallParams(req); name == "out_cycle" {
			return Result(req.ID, map[string]any{
				"content":           []any{map[string]any{"type": "text", "text": `{"a":1}`}},
				"structuredContent": map[string]any{"a": 1},
			}), true
		}
	}
	return "", false
}

// treeSchema lists tree, whose input schema recurses through the items of
// an array (a schema every validator finishes on, which Gemini cannot
// express), and flat.
var treeSchema = on("tools/list", func(req *Request) string {
	return Result(req.ID, map[string]any{"tools": []any{
		map[string]any{"name": "tree", "inputSchema": json.RawMessage(`{"type":"object","$defs":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}}},"properties":{"root":{"$ref":"#/$defs/node"}}}`)},
		map[string]any{"name": "flat", "inputSchema": json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)},
	}})
})
