package schema_test

import (
	"encoding/json"
	"fmt"

	"github.com/mcpbridge/mcpbridge/schema"
)

func Example() {
	input := json.RawMessage(`{
		"$schema": "http://json-schema.org/draft-07/schema#",
		"type": "object",
		"properties": {
			"query": {"type": "string"},
			"limit": {"type": ["integer", "null"]}
		},
		"required": ["query"],
		"additionalProperties": false
	}`)

	// A name the vendor accepts, and the way back.
	names := schema.NewNamer(schema.OpenAI)
	name, _ := names.Add("kb", "search.docs", "kb_search.docs")
	server, tool, _ := names.Lookup(name)
	fmt.Println(name, server, tool)

	// The schema as Gemini wants it.
	low, err := schema.Lower(schema.Gemini, input)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(low.Schema))

	// OpenAI strict mode.
	low, _ = schema.Lower(schema.OpenAI, input)
	fmt.Println(low.Strict, string(low.Schema))

	// Arguments checked before the call.
	v, _ := schema.Compile(input)
	fmt.Println(v.Validate(json.RawMessage(`{"query": "go", "limit": "ten"}`)))
	// Output:
	// kb_search_docs kb search.docs
	// {"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","nullable":true}},"required":["query"]}
	// true {"type":"object","properties":{"query":{"type":"string"},"limit":{"type":["integer","null"]}},"required":["query","limit"],"additionalProperties":false}
	// argument "limit": want integer or null, got string
}
