package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpbridge/mcpbridge/internal/toolschema"
)

// Func makes a local tool from a typed Go function, as a [Set] of one: its
// definition, and a handler that runs fn for the tool's name and returns an
// [UnservedError] for any other. [Join] puts several tools together. Its name must follow the
// MCP specification's rule: 1 to 128 ASCII letters, digits, '_', '-' or '.'.
//
// The input schema is derived from In, which must be a struct (a tool's
// arguments are a JSON object): field names come from `json` tags and
// descriptions from `jsonschema` tags, as in
// [github.com/google/jsonschema-go/jsonschema.For]. Before fn runs, the
// arguments are checked against that schema by the validator every handler
// of mcpbridge uses (which also decodes a value the model sent as a JSON
// string where the schema wants an object or an array); a violation is a [RefusedError] (the tool did not run) whose
// Message names each argument
// at fault in the same words everywhere (`argument "city": want string, got
// integer`), so the model can correct itself, and fn never sees it. Missing
// arguments are read as {}.
//
// What fn returns becomes the [Reply]: a string is its text; a [Reply] is
// used as it is; anything else is encoded as JSON, both as the text the model
// reads and as the structured content for the host (and, when Out is a struct
// or map, its schema is the definition's output schema). An error from fn
// becomes a [FailedError] carrying its message, unless it already is a
// [FailedError] or [RefusedError], or the context is done.
func Func[In, Out any](name, description string, fn func(context.Context, In) (Out, error)) (Set, error) {
	if err := checkName(name); err != nil {
		return Set{}, err
	}
	if fn == nil {
		return Set{}, fmt.Errorf("tool.Func %q: nil function", name)
	}
	in, err := jsonschema.For[In](nil)
	if err != nil {
		return Set{}, fmt.Errorf("tool.Func %q: input schema: %w", name, err)
	}
	if in.Type != "object" {
		return Set{}, fmt.Errorf("tool.Func %q: input type %s is not a struct; tool arguments are a JSON object", name, reflect.TypeFor[In]())
	}
	def := Definition{Name: name, Description: description}
	if def.InputSchema, err = json.Marshal(in); err != nil {
		return Set{}, fmt.Errorf("tool.Func %q: input schema: %w", name, err)
	}
	validator, err := toolschema.Compile(def.InputSchema)
	if err != nil {
		return Set{}, fmt.Errorf("tool.Func %q: input schema: %w", name, err)
	}
	structured := true
	switch reflect.TypeFor[Out]() {
	case reflect.TypeFor[string](), reflect.TypeFor[Reply]():
		structured = false
	default:
		if out, err := jsonschema.For[Out](nil); err == nil && out.Type == "object" {
			if def.OutputSchema, err = json.Marshal(out); err != nil {
				return Set{}, fmt.Errorf("tool.Func %q: output schema: %w", name, err)
			}
		}
	}
	t := &funcTool[In, Out]{def: def, in: validator, fn: fn, structured: structured}
	return Set{Definitions: []Definition{def}, Handler: t}, nil
}

type funcTool[In, Out any] struct {
	def        Definition
	in         *toolschema.Validator
	fn         func(context.Context, In) (Out, error)
	structured bool
}

func (t *funcTool[In, Out]) Call(ctx context.Context, name string, args json.RawMessage) (Reply, error) {
	if name != t.def.Name {
		return Reply{}, &UnservedError{Name: name}
	}
	args, err := t.in.Prepare(args, false)
	if err != nil {
		return Reply{}, &RefusedError{Name: name, Message: err.Error()}
	}
	var in In
	if err := json.Unmarshal(args, &in); err != nil {
		return Reply{}, &RefusedError{Name: name, Message: "invalid arguments: " + err.Error()}
	}
	out, err := t.fn(ctx, in)
	if err != nil {
		var failed *FailedError
		var refused *RefusedError
		switch {
		case errors.As(err, &failed), errors.As(err, &refused):
			return Reply{}, err
		case ctx.Err() != nil:
			return Reply{}, err
		}
		return Reply{}, &FailedError{Name: name, Message: err.Error(), Err: err}
	}
	switch v := any(out).(type) {
	case string:
		return Text(v), nil
	case Reply:
		return v, nil
	}
	data, err := json.Marshal(out)
	if err != nil {
		return Reply{}, &FailedError{Name: name, Message: "the result could not be encoded as JSON", Err: err}
	}
	res := Text(string(data))
	if t.structured {
		res.Structured = data
	}
	return res, nil
}

// maxName is the longest tool name the MCP specification allows, in bytes
// (every character it allows is ASCII).
const maxName = 128

// checkName holds a local tool's name to the MCP specification's rule (1 to
// 128 ASCII letters, digits, '_', '-' or '.'): the name goes to the model as
// it is, and no vendor takes one outside it. A vendor's own, stricter rule
// (OpenAI's 64 bytes and no '.') is checked by no one before the request:
// the llm packages send names as they are, and the vendor's API refuses
// the request. schema.CheckName and schema.Lint check a name against it
// ahead (a toolset renames its servers' tools to fit it).
func checkName(name string) error {
	if name == "" {
		return errors.New("tool.Func: empty name")
	}
	fail := func(why string) error {
		return fmt.Errorf("tool.Func %q: %s; a tool name is 1 to %d ASCII letters, digits, '_', '-' or '.'", name, why, maxName)
	}
	if len(name) > maxName {
		return fail(fmt.Sprintf("%d bytes long, more than %d", len(name), maxName))
	}
	for i, c := range name {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.') {
			return fail(fmt.Sprintf("character %q at byte %d is not allowed", c, i))
		}
	}
	return nil
}
