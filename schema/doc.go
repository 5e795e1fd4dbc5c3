// Package schema makes MCP tools acceptable to each model vendor, and checks
// the arguments a model sends.
//
// MCP servers name tools freely and describe arguments with any JSON Schema;
// the OpenAI, Anthropic and Gemini APIs each refuse some names and some
// schemas, and one refused tool fails a whole request. This package:
//
//   - checks names against each vendor's rule ([CheckName]) and assigns
//     vendor-safe, reversible names ([Namer]);
//   - lowers a schema for a vendor ([Lower]): Anthropic gets it untouched,
//     Gemini gets its OpenAPI subset (references inlined, type arrays made
//     nullable, unknown keywords dropped, free-form objects asked for as
//     JSON strings), OpenAI gets strict mode when the schema allows it and
//     fits its size limits;
//   - repairs what a model sends before it is validated: strings holding
//     the object or array the schema wants ([DecodeStringified]), nulls
//     strict mode forced on optional arguments ([DropNullOptionals]);
//   - lists every problem of a tool for a vendor ([Lint]), so a host can
//     quarantine one tool with a diagnostic naming the JSON pointer instead
//     of failing a session;
//   - validates arguments against the tool's original schema ([Compile],
//     [Validator.Validate]) with messages a model can act on, and a tool's
//     structured result against its output schema
//     ([Validator.ValidateValue], [LintOutput]).
//
// Lowering only loosens: what a vendor cannot express is dropped from what
// the model is shown, and enforced locally by the [Validator].
//
// A schema comes from an untrusted server, and every function here finishes
// in time and memory bounded by the size of its input, whatever the schema
// holds. A schema no validation could finish on (a reference cycle that
// never descends into the value, or references multiplying the subschemas
// applied to one value past a bound) is refused by [Lower], for every
// vendor, and by [Compile], with an [UnboundedError] naming the JSON
// pointer; a validation that would take more work than its value's size
// warrants fails with [ErrTooComplex] before it starts; and lowering for
// Gemini, which inlines references, fails past a bound on the size of its
// result.
//
// Options: the package has none. Its functions take what they work on, and
// its bounds are constants: they protect the host from a server, so nothing
// lifts them.
package schema
