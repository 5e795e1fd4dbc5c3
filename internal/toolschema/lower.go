package toolschema

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// A Diagnostic is one thing lowering changed, dropped or could not do:
// schema.Diagnostic, whose doc says each field.
type Diagnostic struct {
	Pointer string `json:"pointer"`
	Keyword string `json:"keyword,omitempty"`
	Message string `json:"message"`
	Fatal   bool   `json:"fatal,omitempty"` // the tool must be left out
}

// String formats d for a log line: pointer, keyword, message.
func (d Diagnostic) String() string {
	s := d.Pointer
	if s == "" {
		s = "(root)"
	}
	if d.Keyword != "" {
		s += " " + d.Keyword
	}
	s += ": " + d.Message
	if d.Fatal {
		s += " (fatal)"
	}
	return s
}

// A LowerError says why a schema cannot be lowered for a vendor. It is the
// first fatal [Diagnostic]; the tool it belongs to should be left out of the
// session rather than break it.
type LowerError struct {
	Vendor  Vendor
	Pointer string
	Keyword string
	Message string
	// Err is the cause when the schema is unusable whatever the vendor: an
	// *[UnboundedError].
	Err error
}

// Error names the vendor, the place and the reason.
func (e *LowerError) Error() string {
	p := e.Pointer
	if p == "" {
		p = "(root)"
	}
	return fmt.Sprintf("schema: lowering for %s: at %s: %s", e.Vendor, p, e.Message)
}

// Unwrap returns Err.
func (e *LowerError) Unwrap() error { return e.Err }

// Lowered is a schema rewritten for one vendor: schema.Lowered, whose doc
// says each field.
type Lowered struct {
	Schema      json.RawMessage
	Strict      bool // OpenAI's Structured Outputs rules are met
	Diagnostics []Diagnostic
}

// emptyObject is the schema of a tool without arguments.
var emptyObject = json.RawMessage(`{"type":"object","properties":{}}`)

// Lower rewrites a tool's input schema so that vendor v accepts it, as
// schema.Lower's doc says for each vendor: byte for byte for Anthropic,
// Gemini's Schema object for Gemini, strict where it can be for OpenAI. A
// schema no [Validator] could finish on ([UnboundedError]) gives a
// *LowerError for every vendor, as one that cannot be lowered does.
func Lower(v Vendor, schema json.RawMessage) (Lowered, error) {
	if err := v.check(); err != nil {
		return Lowered{}, err
	}
	trimmed := bytes.TrimSpace(schema)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return Lowered{Schema: emptyObject, Strict: v == OpenAI}, nil
	}
	root, err := decodeOrdered(schema)
	if err != nil {
		return Lowered{}, &LowerError{Vendor: v, Message: err.Error()}
	}
	// Whatever the vendor takes, the arguments are validated against this
	// schema; one no validation could finish on leaves the tool out.
	if err := newGraph(root).check(); err != nil {
		ue := err.(*UnboundedError)
		d := Diagnostic{Pointer: ue.Pointer, Keyword: ue.Keyword, Message: ue.Message, Fatal: true}
		return Lowered{Diagnostics: []Diagnostic{d}}, &LowerError{Vendor: v, Pointer: ue.Pointer, Keyword: ue.Keyword, Message: ue.Message, Err: ue}
	}
	if v == Anthropic {
		return Lowered{Schema: schema}, nil
	}
	l := &lowering{vendor: v, root: root, maxBytes: maxLoweredBytes + 2*len(schema)}
	var out Lowered
	switch v {
	case Gemini:
		out.Schema = l.gemini()
	case OpenAI:
		out.Schema, out.Strict = l.openai(schema)
	}
	out.Diagnostics = l.diags
	for _, d := range l.diags {
		if d.Fatal {
			out.Schema = nil
			out.Strict = false
			return out, &LowerError{Vendor: v, Pointer: d.Pointer, Keyword: d.Keyword, Message: d.Message}
		}
	}
	return out, nil
}

// NoArguments reports whether the schema s declares no arguments at all: it
// is empty, or an object schema with no properties and nothing else that
// admits one (additionalProperties, patternProperties, a branch). Gemini
// refuses an object schema without properties as a function's parameters,
// so a Gemini function declaration leaves parameters out when NoArguments
// holds for its lowered schema.
func NoArguments(s json.RawMessage) bool {
	trimmed := bytes.TrimSpace(s)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return true
	}
	v, err := decodeOrdered(trimmed)
	o, ok := v.(*object)
	if err != nil || !ok {
		return false
	}
	for _, m := range o.members {
		switch m.key {
		case "type":
			if ts := typeNames(o); len(ts) != 1 || ts[0] != "object" {
				return false
			}
		case "properties":
			if p, ok := m.val.(*object); !ok || len(p.members) > 0 {
				return false
			}
		case "additionalProperties", "patternProperties", "anyOf", "oneOf", "allOf", "$ref", "minProperties":
			return false
		}
	}
	return true
}

// maxLoweredBytes is how much a lowering may add to the size of a schema
// (Gemini's, which inlines references).
const maxLoweredBytes = 1 << 20

// silent are the keywords a lowering drops without a diagnostic: they
// speak to schema tools, not to a model, so leaving them out changes nothing
// the model is told (and every zod-made schema carries $schema).
var silent = map[string]bool{"$schema": true, "$id": true, "$comment": true}

// lowering is the state of one call to Lower.
type lowering struct {
	vendor Vendor
	root   any
	diags  []Diagnostic
	nodes  int // subschemas lowered so far
	// bytes counts, against maxBytes, the size of the lowered schema so far.
	bytes, maxBytes int

	// origin maps a lowered object to the pointer of the original schema
	// it was lowered from, for diagnostics made on the lowered tree.
	origin map[*object]string
}

func (l *lowering) note(ptr, kw, format string, args ...any) {
	l.diags = append(l.diags, Diagnostic{Pointer: ptr, Keyword: kw, Message: fmt.Sprintf(format, args...)})
}

func (l *lowering) fatal(ptr, kw, format string, args ...any) {
	l.diags = append(l.diags, Diagnostic{Pointer: ptr, Keyword: kw, Message: fmt.Sprintf(format, args...), Fatal: true})
}

// localRef returns the JSON pointer of a reference inside this schema
// ("#/$defs/x" → "/$defs/x"), or ok false for any other reference: mcpbridge
// never fetches a schema.
func localRef(ref string) (ptr string, ok bool) {
	if ref == "#" {
		return "", true
	}
	if len(ref) > 2 && ref[0] == '#' && ref[1] == '/' {
		return ref[1:], true
	}
	return "", false
}
