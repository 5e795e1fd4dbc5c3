// Package schema says what each model vendor makes of an MCP tool.
//
// MCP servers name tools freely and describe arguments with any JSON Schema;
// the OpenAI, Anthropic and Gemini APIs each refuse some names and some
// schemas, and one refused tool fails a whole request. mcpbridge lowers every
// tool for the vendor it is sent to; this package shows that work to a
// program:
//
//   - [Lower] gives the schema a vendor is sent: Anthropic gets it
//     untouched, Gemini its OpenAPI subset (references inlined, type arrays
//     made nullable, unknown keywords dropped, free-form objects asked for
//     as JSON strings), OpenAI strict mode when the schema allows it;
//   - [Lint] lists every problem of a tool for a vendor, each naming the
//     JSON pointer, and [LintOutput] those of an output schema;
//   - [Declaration] renders a tool as the TypeScript a code-writing model
//     reads (package codemode).
//
// Lowering only loosens: what a vendor cannot express is dropped from what
// the model is shown, and mcpbridge checks the arguments against the tool's
// original schema before the call.
//
// A schema comes from an untrusted server, and every function here finishes
// in time and memory bounded by the size of its input: a schema no
// validation could finish on is refused with a [LowerError] naming the
// pointer. Nothing lifts the bounds: they protect the host from a server.
package schema
