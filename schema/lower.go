package schema

import (
	"encoding/json"
	"errors"

	"github.com/mcpbridge/mcpbridge/internal/toolschema"
)

// A Diagnostic is one thing lowering changed, dropped or could not do.
type Diagnostic struct {
	// Pointer is a JSON pointer (RFC 6901) into the original schema; "" is
	// the root. For a tool name problem found by [Lint], it is "" and
	// Keyword is "name".
	Pointer string `json:"pointer"`
	// Keyword is the JSON Schema keyword concerned.
	Keyword string `json:"keyword,omitempty"`
	// Message says what happened, for a person reading a log.
	Message string `json:"message"`
	// Fatal means the schema cannot be sent to the vendor: the caller should
	// quarantine the tool.
	Fatal bool `json:"fatal,omitempty"`
}

// String formats d for a log line: pointer, keyword, message.
func (d Diagnostic) String() string { return toolschema.Diagnostic(d).String() }

// A LowerError says why a schema cannot be lowered for a vendor. It is the
// first fatal [Diagnostic]; the tool it belongs to should be left out of the
// session rather than break it.
type LowerError struct {
	// Vendor is the vendor the schema was lowered for.
	Vendor Vendor
	// Pointer is the JSON pointer of the problem in the schema, Keyword
	// the keyword concerned, Message what is wrong.
	Pointer, Keyword, Message string
	// Err is the cause when the schema is unusable whatever the vendor: no
	// validation could finish on it (a reference cycle that never descends
	// into the value, or references multiplying the subschemas applied to
	// one value past a bound). Pointer says where.
	Err error
}

// Error names the vendor, the place and the reason.
func (e *LowerError) Error() string {
	return (&toolschema.LowerError{Vendor: toolschema.Vendor(e.Vendor), Pointer: e.Pointer, Message: e.Message}).Error()
}

// Unwrap returns Err.
func (e *LowerError) Unwrap() error { return e.Err }

// Lowered is a schema rewritten for one vendor.
type Lowered struct {
	// Schema is the schema to send as the tool's parameters.
	Schema json.RawMessage
	// Strict reports, for OpenAI, that Schema meets the Structured Outputs
	// rules, so the tool may be sent with "strict": true. It is false for
	// the other vendors.
	Strict bool
	// Diagnostics lists every change, drop and refusal, fatal ones included.
	Diagnostics []Diagnostic

	orig json.RawMessage // the schema lowered, which Arguments reads by
}

// Arguments reads the arguments a model sent against Schema back into
// what the original schema takes, for a host that sends a strict schema
// and calls a handler that judges by the original: a model bound by a
// strict schema sends null for an optional argument it leaves out, and
// Arguments drops each such null (of a property the original does not
// require and whose own schema refuses null). Elsewhere args come back as
// they are, byte for byte. A toolset's handler does this itself; a host
// that lowers another source's definitions (a framework adapter) calls it.
func (l Lowered) Arguments(args json.RawMessage) (json.RawMessage, error) {
	if !l.Strict {
		return args, nil
	}
	return toolschema.DropNullOptionals(l.orig, args)
}

// Lower rewrites a tool's input schema so that vendor v accepts it:
//
//   - [Anthropic]: the schema is returned byte for byte, since the Messages
//     API takes any JSON Schema as input_schema. An empty schema becomes
//     {"type":"object","properties":{}}.
//   - [Gemini]: the schema becomes Gemini's Schema object (an OpenAPI 3.0
//     subset): local references are inlined (a recursive or remote one is
//     fatal), type arrays become nullable or anyOf, const becomes a
//     one-value enum, oneOf becomes anyOf, allOf of plain objects is merged,
//     and every keyword Gemini refuses is dropped with a diagnostic.
//   - [OpenAI]: the schema is made strict (Structured Outputs) when it can
//     be, and Lowered.Strict says so; otherwise it is sent as is, fixed only
//     where OpenAI refuses it outright.
//
// Dropping a keyword only loosens what the model is told: the arguments are
// still checked against the original schema before a call, by every
// handler of mcpbridge.
//
// For every vendor, a schema that no validation could finish on (a
// reference cycle that never descends into the value, say) cannot be
// lowered: the arguments could never be checked.
//
// A schema that cannot be lowered gives a *LowerError (with the Lowered
// diagnostics so far); the caller should quarantine that one tool.
func Lower(v Vendor, schema json.RawMessage) (Lowered, error) {
	low, err := toolschema.Lower(toolschema.Vendor(v), schema)
	return Lowered{Schema: low.Schema, Strict: low.Strict, Diagnostics: diagnostics(low.Diagnostics), orig: schema}, lowerError(v, err)
}

// diagnostics are the core's diagnostics as this package declares them.
func diagnostics(ds []toolschema.Diagnostic) []Diagnostic {
	if ds == nil {
		return nil
	}
	out := make([]Diagnostic, len(ds))
	for i, d := range ds {
		out[i] = Diagnostic(d)
	}
	return out
}

// lowerError is the core's *LowerError as this package declares it, and
// any other error as it is.
func lowerError(v Vendor, err error) error {
	var le *toolschema.LowerError
	if !errors.As(err, &le) {
		return err
	}
	return &LowerError{Vendor: v, Pointer: le.Pointer, Keyword: le.Keyword, Message: le.Message, Err: le.Err}
}
