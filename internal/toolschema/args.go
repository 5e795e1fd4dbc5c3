package toolschema

import (
	"bytes"
	"encoding/json"
	"slices"
)

// DropNullOptionals undoes, on the arguments a model sent, what strict
// lowering did to optional properties: it removes every property whose value
// is null, that the original schema does not require, and whose own schema
// does not accept null. A model bound by a strict schema sends null for an
// argument it means to leave out; the MCP server, judging by its own schema,
// would refuse the null.
//
// It follows properties, items and local references of the original schema;
// it leaves arguments alone where the schema branches (anyOf, oneOf). The
// arguments come back byte for byte when nothing is removed.
func DropNullOptionals(schema, args json.RawMessage) (json.RawMessage, error) {
	return repair(schema, args, &argWalker{dropNulls: true})
}

// DecodeStringified replaces, in the arguments a model sent, every string
// that holds a JSON object or array where the original schema wants an
// object or an array and not a string, by the value it holds. Models write
// nested objects as strings now and then, and Gemini lowering asks for a
// free-form object as a string (its Schema object cannot express one); the
// MCP server, judging by its own schema, would refuse the string.
//
// It follows the schema as [DropNullOptionals] does, and also
// additionalProperties; the arguments come back byte for byte when nothing
// is replaced.
func DecodeStringified(schema, args json.RawMessage) (json.RawMessage, error) {
	return repair(schema, args, &argWalker{decodeStrings: true})
}

func repair(schema, args json.RawMessage, w *argWalker) (json.RawMessage, error) {
	if len(schema) == 0 || len(args) == 0 {
		return args, nil
	}
	s, err := decodeOrdered(schema)
	if err != nil {
		return nil, err
	}
	a, err := decodeOrdered(args)
	if err != nil {
		return nil, err
	}
	w.root = s
	a = w.walk(s, a, 0)
	if !w.changed {
		return args, nil
	}
	return encodeOrdered(a), nil
}

// Prepare readies the arguments a model sent for the tool's server, decoding
// them once: it refuses anything but a JSON object (empty args mean {}),
// repairs them in one walk as [DecodeStringified] does and, with dropNulls,
// as [DropNullOptionals] does, and validates the result as
// [Validator.Validate] does. It returns the arguments to send, args itself
// when nothing was repaired, or a *ValidationError.
//
// Calling it costs one decode of the arguments; the schema was decoded once
// by [Compile]. Calling the two repairs and Validate in turn decodes the
// schema twice more and the arguments thrice, which on a large schema is most
// of the cost of a call.
func (v *Validator) Prepare(args json.RawMessage, dropNulls bool) (json.RawMessage, error) {
	if t := bytes.TrimSpace(args); len(t) == 0 || string(t) == "null" {
		args = json.RawMessage(`{}`) // no arguments
	}
	a, err := decodeOrdered(args)
	if err != nil {
		return nil, &ValidationError{Message: "arguments are not valid JSON: " + err.Error()}
	}
	if _, ok := a.(*object); !ok {
		// Checked here, not left to the schema: an empty schema accepts
		// anything, and an MCP server takes only an object.
		return nil, &ValidationError{Message: "the arguments must be a JSON object"}
	}
	w := &argWalker{root: v.root, decodeStrings: true, dropNulls: dropNulls}
	a = w.walk(v.root, a, 0)
	if w.changed {
		args = encodeOrdered(a)
	}
	if err := v.validate(a); err != nil {
		return nil, err
	}
	return args, nil
}

// argWalker walks arguments alongside the schema they were written for,
// repairing what its flags ask for.
type argWalker struct {
	dropNulls, decodeStrings bool

	root    any
	changed bool
}

// maxArgDepth bounds the walk, references included.
const maxArgDepth = 64

// walk returns a, repaired for the schema s.
func (w *argWalker) walk(s, a any, depth int) any {
	o, ok := s.(*object)
	for ok && depth < maxArgDepth {
		ref, has := o.get("$ref")
		if !has {
			break
		}
		r, _ := ref.(string)
		ptr, local := localRef(r)
		if !local {
			return a
		}
		t, found := resolvePointer(w.root, ptr)
		if !found {
			return a
		}
		o, ok = t.(*object)
		depth++
	}
	if !ok || depth >= maxArgDepth {
		return a
	}
	if str, isString := a.(string); isString && w.decodeStrings {
		v, decoded := decodeFor(o, str)
		if !decoded {
			return a
		}
		w.changed = true
		a = v
	}
	switch a := a.(type) {
	case *object:
		pv, _ := o.get("properties")
		props, _ := pv.(*object)
		extra, _ := o.get("additionalProperties")
		req := required(o)
		// Each member is replaced in place or deleted, keys being
		// distinct: i moves on past each one kept.
		for i := 0; i < len(a.members); i++ {
			m := &a.members[i]
			ps, declared := any(nil), false
			if props != nil {
				ps, declared = props.get(m.key)
			}
			if !declared {
				if w.decodeStrings && extra != nil {
					// Only strings are decoded under additionalProperties;
					// nulls stay, as DropNullOptionals promises.
					drop := w.dropNulls
					w.dropNulls = false
					m.val = w.walk(extra, m.val, depth+1)
					w.dropNulls = drop
				}
				continue
			}
			if w.dropNulls && m.val == nil && !req[m.key] && !acceptsNull(ps) {
				a.del(m.key)
				w.changed = true
				i--
				continue
			}
			m.val = w.walk(ps, m.val, depth+1)
		}
		return a
	case []any:
		if it, ok := o.get("items"); ok {
			for i, e := range a {
				a[i] = w.walk(it, e, depth+1)
			}
		}
		return a
	}
	return a
}

// decodeFor returns the object or array str holds, when the schema o wants
// one of those and not a string.
func decodeFor(o *object, str string) (any, bool) {
	ts := typeNames(o)
	if slices.Contains(ts, "string") {
		return nil, false
	}
	wantObject, wantArray := slices.Contains(ts, "object"), slices.Contains(ts, "array")
	if !wantObject && !wantArray {
		return nil, false
	}
	v, err := decodeOrdered([]byte(str))
	if err != nil {
		return nil, false
	}
	switch v.(type) {
	case *object:
		return v, wantObject
	case []any:
		return v, wantArray
	}
	return nil, false
}

// required returns the names the object schema o requires.
func required(o *object) map[string]bool {
	req := map[string]bool{}
	rs, _ := o.get("required")
	names, _ := rs.([]any)
	for _, r := range names {
		if n, ok := r.(string); ok {
			req[n] = true
		}
	}
	return req
}

// acceptsNull reports whether a property schema plainly allows null. A
// schema it cannot judge (a reference, a branch) is assumed to allow it, so
// that a null is never dropped on a guess.
func acceptsNull(s any) bool {
	o, ok := s.(*object)
	if !ok {
		return s == true
	}
	if o.has("$ref") || o.has("anyOf") || o.has("oneOf") || o.has("allOf") {
		return true
	}
	if n, _ := o.get("nullable"); n == true {
		return true
	}
	ts := typeNames(o)
	if ts == nil {
		if ev, ok := o.get("enum"); ok {
			vals, _ := ev.([]any)
			return slices.Contains(vals, nil)
		}
		return !o.has("const")
	}
	return slices.Contains(ts, "null")
}
