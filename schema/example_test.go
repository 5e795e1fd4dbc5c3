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

	// The schema as Gemini wants it.
	low, err := schema.Lower(schema.Gemini, input)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(low.Schema))

	// OpenAI strict mode.
	low, _ = schema.Lower(schema.OpenAI, input)
	fmt.Println(low.Strict, string(low.Schema))
	// Output:
	// {"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","nullable":true}},"required":["query"]}
	// true {"type":"object","properties":{"query":{"type":"string"},"limit":{"type":["integer","null"]}},"required":["query","limit"],"additionalProperties":false}
}

// What each vendor would make of a tool, as `mcpbridge lint` prints it: a
// fatal diagnostic means the vendor refuses the tool as it is.
func ExampleLint() {
	input := json.RawMessage(`{"type": "object", "properties": {"when": {"type": "string"}, "labels": {"type": "object", "additionalProperties": {"type": "string"}}}, "required": ["when"]}`)
	for _, v := range []schema.Vendor{schema.OpenAI, schema.Gemini} {
		for _, d := range schema.Lint(v, "calendar.add", input) {
			fmt.Println(v, d)
		}
	}
	// Output:
	// openai (root) name: tool name character '.' at byte 8 is not allowed (want ASCII letters, digits or one of "_-") (fatal)
	// openai /properties/labels/additionalProperties additionalProperties: strict mode off: the object allows additional properties
	// gemini /properties/labels/additionalProperties additionalProperties: dropped additionalProperties: not in Gemini's Schema object
	// gemini /properties/labels properties: free-form object became a string holding JSON: Gemini refuses an object without properties
}

// An output schema is not lowered but compiled, to check results; one no
// validation could finish on leaves the tool out.
func ExampleLintOutput() {
	for _, output := range []string{`{"type": "object"}`, `{"$ref": "#"}`} {
		diags := schema.LintOutput(json.RawMessage(output))
		if len(diags) == 0 {
			fmt.Println(output, "can check results")
		}
		for _, d := range diags {
			fmt.Println(output, d)
		}
	}
	// Output:
	// {"type": "object"} can check results
	// {"$ref": "#"} /$ref $ref: $ref "#" closes the cycle (root) → (root), which never descends into the value: no validation could finish (fatal)
}

// A vendor as a user writes it in a flag or a config file.
func ExampleParseVendor() {
	for _, s := range []string{"OpenAI", " claude", "google", "mistral"} {
		v, err := schema.ParseVendor(s)
		fmt.Printf("%q %v\n", v, err)
	}
	// Output:
	// "openai" <nil>
	// "anthropic" <nil>
	// "gemini" <nil>
	// "" schema: unknown vendor "mistral" (want openai, anthropic or gemini)
}

// A tool as a TypeScript method, for a model that writes code against the
// tools (package codemode): the description and each property's become
// doc comments, and what TypeScript cannot say is said in words.
func ExampleDeclaration() {
	input := json.RawMessage(`{"type": "object",
		"properties": {"city": {"type": "string", "description": "the city's name"},
		               "days": {"type": "integer", "minimum": 1, "maximum": 7}},
		"required": ["city"]}`)
	output := json.RawMessage(`{"type": "object", "properties": {"celsius": {"type": "number"}}}`)
	fmt.Println(schema.Declaration("forecast", "The weather to come.", input, output, ""))
	// Output:
	// /** The weather to come. */
	// forecast(args: {
	//   /** the city's name */
	//   city: string;
	//   /** Minimum: 1. Maximum: 7. */
	//   days?: number;
	// }): Promise<{
	//   celsius?: number;
	// }>;
}

// A host lowers each tool's schema for its vendor and sends what it
// gets; a schema that cannot be lowered gives a LowerError, and that one
// tool is left out rather than fail every request.
func ExampleLower() {
	for _, t := range []struct{ name, input string }{
		{"search", `{"type": "object", "properties": {"query": {"type": "string", "format": "regex"}}}`},
		{"tree", `{"type": "object", "properties": {"root": {"$ref": "#/$defs/node"}},
			"$defs": {"node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}}`},
	} {
		low, err := schema.Lower(schema.Gemini, json.RawMessage(t.input))
		if err != nil {
			fmt.Println("left out:", t.name, err)
			continue
		}
		fmt.Println("sent:", t.name, string(low.Schema))
		for _, d := range low.Diagnostics {
			fmt.Printf("  %v\n", d)
		}
	}
	// Output:
	// sent: search {"type":"object","properties":{"query":{"type":"string","description":"Format: regex."}}}
	//   /properties/query/format format: dropped format "regex": Gemini accepts only enum and date-time for strings, float/double, int32/int64 for numbers
	// left out: tree schema: lowering for gemini: at /$defs/node/properties/children/items/$ref: reference "#/$defs/node" is recursive; Gemini's Schema cannot express recursion
}

// A model bound by a strict schema sends null for an argument it leaves
// out; Arguments gives the tool what its own schema takes.
func ExampleLowered_Arguments() {
	low, err := schema.Lower(schema.OpenAI, json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(low.Strict, string(low.Schema))
	args, err := low.Arguments(json.RawMessage(`{"city":"Oslo","days":null}`))
	fmt.Println(string(args), err)
	// Output:
	// true {"type":"object","properties":{"city":{"type":"string"},"days":{"type":["integer","null"]}},"required":["city","days"],"additionalProperties":false}
	// {"city":"Oslo"} <nil>
}
