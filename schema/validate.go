package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// A Validator checks a tool's arguments against the tool's own input schema
// (not a lowered one) before anything is sent to the server.
//
// The verdict is jsonschema-go's (draft 2020-12 and draft-07). The message
// of a refusal is built by this package, so that a model can read which
// argument is wrong and why, e.g. `argument "count": want integer, got
// string`. A Validator is safe for concurrent use.
type Validator struct {
	resolved *jsonschema.Resolved
	root     any // the schema as ordered JSON, to locate failures
}

// A ValidationError says which arguments break the schema and how: every
// problem found (up to ten), so that a model can fix them in one go.
type ValidationError struct {
	// Pointer is the JSON pointer of the first offending value in the
	// arguments; "" is the arguments object itself.
	Pointer string
	// Message is the whole sentence, naming the argument; with several
	// problems, their messages joined by "; ".
	Message string
	// Problems lists each problem when there are several, else it is nil.
	Problems []*ValidationError
}

// Error returns the message, meant to be shown to the model as is.
func (e *ValidationError) Error() string { return e.Message }

var supportedDrafts = []string{
	"http://json-schema.org/draft-07/schema#",
	"https://json-schema.org/draft-07/schema#",
	"https://json-schema.org/draft/2020-12/schema",
}

// Compile prepares schema for [Validator.Validate]. An empty schema accepts
// any object. "$ref" is followed only within the schema: a remote reference
// is an error, never a fetch. Drafts are read as [Resolve] reads them.
func Compile(schema json.RawMessage) (*Validator, error) {
	root, rs, err := resolve(schema)
	if err != nil {
		return nil, fmt.Errorf("schema: compiling: %w", err)
	}
	return &Validator{resolved: rs, root: root}, nil
}

// Resolve prepares schema for jsonschema-go's Validate, as [Compile] does for
// arguments; it is for a schema whose failures need no message for a model,
// such as a tool's output schema. An empty schema accepts anything. "$ref" is
// followed only within the schema: a remote reference is an error, never a
// fetch. A "$schema" naming draft-07 or 2020-12 selects that draft; any other
// "$schema" (draft-04, 2019-09, a draft without the trailing '#') is removed,
// and the schema read as 2020-12, because MCP servers declare drafts loosely
// and jsonschema-go refuses the ones it does not know.
func Resolve(schema json.RawMessage) (*jsonschema.Resolved, error) {
	_, rs, err := resolve(schema)
	if err != nil {
		return nil, fmt.Errorf("schema: resolving: %w", err)
	}
	return rs, nil
}

// resolve decodes schema, normalises its draft and resolves it with no
// loader. It returns the decoded schema too, for the locator and the
// argument walker.
func resolve(schema json.RawMessage) (any, *jsonschema.Resolved, error) {
	if len(strings.TrimSpace(string(schema))) == 0 {
		schema = json.RawMessage(`{}`)
	}
	root, err := decodeOrdered(schema)
	if err != nil {
		return nil, nil, err
	}
	if o, ok := root.(*object); ok {
		if d, ok := o.get("$schema"); ok {
			switch ds, _ := d.(string); {
			case ds == "http://json-schema.org/draft-07/schema" || ds == "https://json-schema.org/draft-07/schema":
				o.set("$schema", ds+"#")
			case !slices.Contains(supportedDrafts, ds):
				o.del("$schema")
			}
		}
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(encodeOrdered(root), &s); err != nil {
		return nil, nil, err
	}
	rs, err := s.Resolve(nil) // no Loader: a remote $ref fails
	if err != nil {
		return nil, nil, err
	}
	return root, rs, nil
}

// Validate checks args, a JSON object; empty args mean {}. It returns nil or
// a *ValidationError.
func (v *Validator) Validate(args json.RawMessage) error {
	if len(strings.TrimSpace(string(args))) == 0 {
		args = json.RawMessage(`{}`)
	}
	a, err := decodeOrdered(args)
	if err != nil {
		return &ValidationError{Message: "arguments are not valid JSON: " + err.Error()}
	}
	return v.validate(a)
}

// validate checks a, arguments as decodeOrdered returns them.
func (v *Validator) validate(a any) error {
	inst, err := plain(a)
	if err != nil {
		return &ValidationError{Message: "arguments are not valid JSON: " + err.Error()}
	}
	err = v.resolved.Validate(inst)
	if err == nil {
		return nil
	}
	loc := &locator{root: v.root}
	loc.find(v.root, a, nil, 0)
	if e := loc.result(); e != nil {
		return e
	}
	msg := err.Error()
	for strings.HasPrefix(msg, "validating ") {
		i := strings.Index(msg, ": ")
		if i < 0 {
			break
		}
		msg = msg[i+2:]
	}
	return &ValidationError{Message: "arguments do not match the input schema: " + msg}
}

// plain turns a value decodeOrdered returns into what json.Unmarshal into an
// any returns, which is what jsonschema-go validates, without parsing the
// JSON again.
func plain(v any) (any, error) {
	switch v := v.(type) {
	case *object:
		m := make(map[string]any, len(v.members))
		for _, mb := range v.members {
			e, err := plain(mb.val)
			if err != nil {
				return nil, err
			}
			m[mb.key] = e
		}
		return m, nil
	case []any:
		s := make([]any, len(v))
		for i, e := range v {
			var err error
			if s[i], err = plain(e); err != nil {
				return nil, err
			}
		}
		return s, nil
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return nil, fmt.Errorf("number %s: %w", v, err) // out of range, as json.Unmarshal finds
		}
		return f, nil
	}
	return v, nil
}

// maxProblems bounds the problems one ValidationError lists.
const maxProblems = 10

// locator finds the failures of the common keywords, each with its place.
type locator struct {
	root any
	errs []*ValidationError
}

type seg struct {
	name  string
	index int // used when name is ""
}

func describe(path []seg) string {
	if len(path) == 0 {
		return "arguments"
	}
	var b strings.Builder
	for i, s := range path {
		switch {
		case s.name == "" && s.index >= 0:
			fmt.Fprintf(&b, "[%d]", s.index)
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.name)
		}
	}
	return fmt.Sprintf("argument %q", b.String())
}

func pointer(path []seg) string {
	p := ""
	for _, s := range path {
		if s.name == "" && s.index >= 0 {
			p += "/" + strconv.Itoa(s.index)
		} else {
			p = pointerJoin(p, s.name)
		}
	}
	return p
}

func (l *locator) fail(path []seg, format string, args ...any) {
	l.add(&ValidationError{Pointer: pointer(path), Message: describe(path) + ": " + fmt.Sprintf(format, args...)})
}

func (l *locator) add(e *ValidationError) {
	if len(l.errs) < maxProblems {
		l.errs = append(l.errs, e)
	}
}

// result is the one error that says every problem found, or nil.
func (l *locator) result() *ValidationError {
	switch len(l.errs) {
	case 0:
		return nil
	case 1:
		return l.errs[0]
	}
	msgs := make([]string, len(l.errs))
	for i, e := range l.errs {
		msgs[i] = e.Message
	}
	first := *l.errs[0]
	first.Message = strings.Join(msgs, "; ")
	first.Problems = l.errs
	return &first
}

func jsonType(v any) string {
	switch v := v.(type) {
	case *object:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil:
		return "null"
	case json.Number:
		if f, err := v.Float64(); err == nil && f == math.Trunc(f) && !math.IsInf(f, 0) {
			return "integer"
		}
		return "number"
	}
	return "unknown"
}

func child(path []seg, s seg) []seg { return append(path[:len(path):len(path)], s) }

func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

func (l *locator) find(s, inst any, path []seg, depth int) {
	if depth > 64 || len(l.errs) >= maxProblems {
		return
	}
	if b, ok := s.(bool); ok {
		if !b {
			l.fail(path, "not allowed")
		}
		return
	}
	o, ok := s.(*object)
	if !ok {
		return
	}
	if ref, ok := o.get("$ref"); ok {
		r, _ := ref.(string)
		if ptr, local := localRef(r); local {
			if t, found := resolvePointer(l.root, ptr); found {
				l.find(t, inst, path, depth+1)
			}
		}
	}
	got := jsonType(inst)
	if ts := typeNames(o); ts != nil {
		ok := slices.Contains(ts, got) || got == "integer" && slices.Contains(ts, "number")
		if !ok {
			l.fail(path, "want %s, got %s", strings.Join(ts, " or "), got)
			return // the other keywords are about a value of another type
		}
	}
	if ev, ok := o.get("enum"); ok {
		if vals, ok := ev.([]any); ok && !containsJSON(vals, inst) {
			l.fail(path, "want one of %s, got %s", encodeOrdered(vals), encodeOrdered(inst))
		}
	}
	if cv, ok := o.get("const"); ok && !containsJSON([]any{cv}, inst) {
		l.fail(path, "want %s, got %s", encodeOrdered(cv), encodeOrdered(inst))
	}
	if f, ok := number(inst); ok {
		if m, ok := number(get(o, "minimum")); ok && f < m {
			l.fail(path, "%v is less than the minimum %v", inst, m)
		}
		if m, ok := number(get(o, "maximum")); ok && f > m {
			l.fail(path, "%v is more than the maximum %v", inst, m)
		}
	}
	switch in := inst.(type) {
	case string:
		n := utf8.RuneCountInString(in)
		if m, ok := number(get(o, "minLength")); ok && float64(n) < m {
			l.fail(path, "want at least %v characters, got %d", m, n)
		}
		if m, ok := number(get(o, "maxLength")); ok && float64(n) > m {
			l.fail(path, "want at most %v characters, got %d", m, n)
		}
		if p, ok := get(o, "pattern").(string); ok {
			if re, err := regexp.Compile(p); err == nil && !re.MatchString(in) {
				l.fail(path, "%q does not match the pattern %q", in, p)
			}
		}
	case []any:
		if m, ok := number(get(o, "minItems")); ok && float64(len(in)) < m {
			l.fail(path, "want at least %v items, got %d", m, len(in))
		}
		if m, ok := number(get(o, "maxItems")); ok && float64(len(in)) > m {
			l.fail(path, "want at most %v items, got %d", m, len(in))
		}
		if it, ok := o.get("items"); ok {
			if _, tuple := it.([]any); !tuple {
				for i, e := range in {
					l.find(it, e, child(path, seg{index: i}), depth+1)
				}
			}
		}
	case *object:
		props, _ := get(o, "properties").(*object)
		if rs, ok := get(o, "required").([]any); ok {
			for _, r := range rs {
				if name, ok := r.(string); ok && !in.has(name) {
					full := child(path, seg{name: name})
					l.add(&ValidationError{Pointer: pointer(full), Message: "missing required " + describe(full)})
				}
			}
		}
		ap, hasAP := o.get("additionalProperties")
		for _, m := range in.members {
			p := child(path, seg{name: m.key, index: -1})
			if props != nil {
				if ps, ok := props.get(m.key); ok {
					l.find(ps, m.val, p, depth+1)
					continue
				}
			}
			if o.has("patternProperties") {
				continue // left to jsonschema-go
			}
			if hasAP && ap == false {
				var allowed []string
				if props != nil {
					allowed = props.keys()
				}
				msg := "unexpected " + describe(p)
				if len(allowed) > 0 {
					msg += " (allowed: " + strings.Join(allowed, ", ") + ")"
				}
				l.add(&ValidationError{Pointer: pointer(p), Message: msg})
				continue
			}
			if hasAP {
				l.find(ap, m.val, p, depth+1)
			}
		}
	}
}

func get(o *object, k string) any { v, _ := o.get(k); return v }

// containsJSON compares JSON values by their encoding, numbers by value.
func containsJSON(vals []any, v any) bool {
	for _, e := range vals {
		if a, ok := number(e); ok {
			if b, ok := number(v); ok && a == b {
				return true
			}
			continue
		}
		if string(encodeOrdered(e)) == string(encodeOrdered(v)) {
			return true
		}
	}
	return false
}
