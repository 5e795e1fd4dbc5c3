package toolschema

import (
	"encoding/json"
	"fmt"
	"slices"
)

// OpenAI function parameters are a JSON Schema whose root is an object
// (OpenAI API reference, function tool "parameters"). With "strict": true
// the schema must follow the Structured Outputs subset (OpenAI guide,
// Structured Outputs, "Supported schemas"):
//
//   - every object has "additionalProperties": false and lists every
//     property in "required"; an optional field is written as a union with
//     null ("type": ["string", "null"]);
//   - the keywords are: type, properties, required, additionalProperties,
//     items, enum, const, anyOf (not at the root), $ref/$defs (recursion
//     allowed), description, title; for strings pattern and format (date-time,
//     time, date, duration, email, hostname, ipv4, ipv6, uuid); for numbers
//     multipleOf, minimum, maximum, exclusiveMinimum, exclusiveMaximum; for
//     arrays minItems, maxItems;
//   - allOf, oneOf, not, if/then/else, dependentRequired, dependentSchemas,
//     patternProperties, unevaluatedProperties, propertyNames, contains and
//     tuples are not supported, nor is a free-form object;
//   - minLength/maxLength, minProperties/maxProperties and uniqueItems are
//     not supported either, but only bound a value the schema already
//     shapes: lowering moves them into the description and keeps the schema
//     strict (the Validator still enforces them);
//   - a schema has at most 5000 object properties in all, 10 levels of
//     object nesting and 1000 enum values in all, and the property names,
//     definition names, enum and const values together are at most 120,000
//     characters long.
var openaiStrictKeywords = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true,
	"items": true, "enum": true, "const": true, "anyOf": true, "$ref": true,
	"$defs": true, "definitions": true, "description": true, "title": true,
	"pattern": true, "format": true, "multipleOf": true, "maximum": true,
	"exclusiveMaximum": true, "minimum": true, "exclusiveMinimum": true,
	"minItems": true, "maxItems": true,
}

// openaiAnnotations are keywords that do not constrain a value; strict mode
// refuses them, so they are dropped rather than turning strict off.
var openaiAnnotations = map[string]bool{
	"default": true, "examples": true, "example": true, "$schema": true, "$id": true,
	"$comment": true, "deprecated": true, "readOnly": true, "writeOnly": true,
	"contentEncoding": true, "contentMediaType": true,
}

// The size limits of a strict schema (see above).
const (
	openaiMaxProperties = 5000
	openaiMaxDepth      = 10
	openaiMaxEnums      = 1000
	openaiMaxChars      = 120000
)

// openaiWorded are the keywords strict mode refuses that lowering says in
// the description instead of turning strict mode off.
var openaiWorded = map[string]bool{
	"minLength": true, "maxLength": true, "minProperties": true, "maxProperties": true, "uniqueItems": true,
}

var openaiFormats = map[string]bool{
	"date-time": true, "time": true, "date": true, "duration": true, "email": true,
	"hostname": true, "ipv4": true, "ipv6": true, "uuid": true,
}

// openai lowers l.root. It returns a strict schema when every construct
// allows it, else the original bytes, fixed only at the root (a missing
// "type" becomes "object", a missing "properties" becomes {}), with a
// diagnostic for each reason strict is off.
//
// Making an optional property nullable changes what the model sends: it
// passes null where it would have left the property out. Use
// [DropNullOptionals] on the arguments before calling the tool.
func (l *lowering) openai(orig json.RawMessage) (json.RawMessage, bool) {
	root, ok := l.root.(*object)
	if !ok {
		if b, isBool := l.root.(bool); isBool && b {
			return emptyObject, true
		}
		l.fatal("", "", "root schema is not an object; OpenAI parameters must be an object schema")
		return nil, false
	}
	fixed := clone(root).(*object)
	changed := false
	if ts := typeNames(fixed); ts == nil {
		if !fixed.has("anyOf") && !fixed.has("oneOf") && !fixed.has("allOf") {
			fixed.set("type", "object")
			changed = true
		}
	} else if !slices.Contains(ts, "object") {
		l.fatal("", "type", "root type is %v; OpenAI parameters must be an object schema", ts)
		return nil, false
	}
	branched := fixed.has("anyOf") || fixed.has("oneOf") || fixed.has("allOf")
	if ts := typeNames(fixed); len(ts) == 1 && ts[0] == "object" && !fixed.has("properties") && !branched {
		fixed.set("properties", &object{})
		changed = true
	}

	s := &strictening{l: l}
	strict := clone(fixed)
	s.walk(strict, "", 0)
	s.checkSize()
	if len(s.reasons) == 0 {
		l.diags = append(l.diags, s.notes...)
		return encodeOrdered(strict), true
	}
	l.diags = append(l.diags, s.reasons...)
	if changed {
		return encodeOrdered(fixed), false
	}
	return orig, false
}

// strictening rewrites a schema for strict mode in place, collecting the
// reasons it cannot be strict and notes on what it changed.
type strictening struct {
	l       *lowering
	reasons []Diagnostic
	notes   []Diagnostic

	// What counts against the size limits, and where the deepest object is.
	props, enums, chars int
	depth               int
	deepest             string
}

func (s *strictening) checkSize() {
	if s.props > openaiMaxProperties {
		s.off("", "properties", fmt.Sprintf("%d object properties in all, over the limit of %d", s.props, openaiMaxProperties))
	}
	if s.depth > openaiMaxDepth {
		s.off(s.deepest, "properties", fmt.Sprintf("%d levels of object nesting, over the limit of %d", s.depth, openaiMaxDepth))
	}
	if s.enums > openaiMaxEnums {
		s.off("", "enum", fmt.Sprintf("%d enum values in all, over the limit of %d", s.enums, openaiMaxEnums))
	}
	if s.chars > openaiMaxChars {
		s.off("", "", fmt.Sprintf("property names, definition names, enum and const values are %d characters long in all, over the limit of %d", s.chars, openaiMaxChars))
	}
}

// countValues adds the enum or const values vals to the size counts.
func (s *strictening) countValues(vals ...any) {
	for _, v := range vals {
		if str, ok := v.(string); ok {
			s.chars += len(str)
		} else {
			s.chars += len(encodeOrdered(v))
		}
	}
}

func (s *strictening) off(ptr, kw, msg string) {
	s.reasons = append(s.reasons, Diagnostic{Pointer: ptr, Keyword: kw, Message: "strict mode off: " + msg})
}

func (s *strictening) note(ptr, kw, msg string) {
	s.notes = append(s.notes, Diagnostic{Pointer: ptr, Keyword: kw, Message: msg})
}

// walk checks and rewrites the schema v found at ptr, inside depth
// enclosing object schemas: each keyword (see [strictening.keyword]), then
// the schema as an object.
func (s *strictening) walk(v any, ptr string, depth int) {
	o, ok := v.(*object)
	if !ok {
		s.off(ptr, "", "a boolean schema cannot be strict")
		return
	}
	if ptr == "" && o.has("anyOf") {
		s.off(pointerJoin(ptr, "anyOf"), "anyOf", "anyOf at the root is not supported")
	}
	for _, m := range slices.Clone(o.members) {
		s.keyword(o, m, pointerJoin(ptr, m.key), depth)
	}
	s.object(o, ptr, depth)
}

// keyword checks or rewrites the keyword m of o, found at kp: one strict
// mode refuses is dealt with by [strictening.refused]; the others are
// walked into, counted against the size limits, or checked.
func (s *strictening) keyword(o *object, m member, kp string, depth int) {
	if !openaiStrictKeywords[m.key] {
		s.refused(o, m, kp)
		return
	}
	switch m.key {
	case "format":
		s.format(o, m.val, kp)
	case "$ref":
		if ref, _ := m.val.(string); !isLocal(ref) {
			s.off(kp, "$ref", "reference "+string(encodeOrdered(m.val))+" is not local")
		}
	case "$defs", "definitions":
		s.definitions(m.val, kp, depth)
	case "items":
		s.items(m.val, kp, depth)
	case "anyOf":
		subs, _ := m.val.([]any)
		for i, sub := range subs {
			s.walk(sub, pointerJoin(kp, itoa(i)), depth)
		}
	case "enum":
		vals, _ := m.val.([]any)
		s.enums += len(vals)
		s.countValues(vals...)
	case "const":
		s.countValues(m.val)
	}
}

// refused deals with a keyword strict mode refuses: it is moved into the
// description when it tells the model something the schema still shapes,
// dropped when it tells nothing, and else it turns strict mode off.
func (s *strictening) refused(o *object, m member, kp string) {
	switch {
	case m.key == "default":
		// The model should still know it.
		s.describe(o, m, kp, "Default")
	case openaiWorded[m.key]:
		s.describe(o, m, kp, m.key)
	case openaiAnnotations[m.key]:
		o.del(m.key)
		if !silent[m.key] {
			s.note(kp, m.key, "dropped "+m.key+": strict mode refuses it")
		}
	default:
		s.off(kp, m.key, m.key+" is not supported")
	}
}

// describe moves the keyword m of o into o's description, as label: value.
func (s *strictening) describe(o *object, m member, kp, label string) {
	o.del(m.key)
	appendDescription(o, nil, label+": "+string(encodeOrdered(m.val))+".")
	s.note(kp, m.key, "moved "+m.key+" into the description: strict mode refuses the keyword")
}

// format moves a format strict mode does not support into the description.
func (s *strictening) format(o *object, v any, kp string) {
	if f, _ := v.(string); !openaiFormats[f] {
		o.del("format")
		appendDescription(o, nil, "Format: "+f+".")
		s.note(kp, "format", "moved format "+string(encodeOrdered(v))+" into the description: strict mode does not support it")
	}
}

// definitions walks each definition, whose name counts against the size
// limits.
func (s *strictening) definitions(v any, kp string, depth int) {
	defs, ok := v.(*object)
	if !ok {
		return
	}
	for _, d := range defs.members {
		s.chars += len(d.key)
		s.walk(d.val, pointerJoin(kp, d.key), depth)
	}
}

func (s *strictening) items(v any, kp string, depth int) {
	if _, tuple := v.([]any); tuple {
		s.off(kp, "items", "tuples are not supported")
		return
	}
	s.walk(v, kp, depth)
}

// object makes o, if it is an object schema, strict: no additional
// properties, and every property required, an optional one made nullable.
// A free-form object, or one that allows additional properties, turns
// strict mode off.
func (s *strictening) object(o *object, ptr string, depth int) {
	if !slices.Contains(typeNames(o), "object") && !o.has("properties") {
		return
	}
	if ap, ok := o.get("additionalProperties"); ok && ap != false {
		s.off(pointerJoin(ptr, "additionalProperties"), "additionalProperties", "the object allows additional properties")
		return
	}
	props, ok := get(o, "properties").(*object)
	if !ok {
		s.off(ptr, "properties", "a free-form object (no properties) is not supported")
		return
	}
	o.set("additionalProperties", false)
	if depth++; depth > s.depth {
		s.depth, s.deepest = depth, ptr
	}
	req := required(o)
	all := make([]any, 0, len(props.members))
	for i, p := range props.members {
		pp := pointerJoin(pointerJoin(ptr, "properties"), p.key)
		s.props++
		s.chars += len(p.key)
		s.walk(p.val, pp, depth)
		if !req[p.key] {
			props.members[i].val = makeNullable(p.val)
			s.note(pp, "required", "optional property made required and nullable for strict mode")
		}
		all = append(all, p.key)
	}
	o.set("required", all)
}

func isLocal(ref string) bool { _, ok := localRef(ref); return ok }

// makeNullable returns a schema that also accepts null.
func makeNullable(v any) any {
	o, ok := v.(*object)
	if !ok {
		return v
	}
	ts := typeNames(o)
	if slices.Contains(ts, "null") {
		return o
	}
	_, hasRef := o.get("$ref")
	_, hasAny := o.get("anyOf")
	_, hasConst := o.get("const")
	if ts != nil && !hasRef && !hasAny && !hasConst {
		types := make([]any, 0, len(ts)+1)
		for _, t := range ts {
			types = append(types, t)
		}
		o.set("type", append(types, "null"))
		if ev, ok := o.get("enum"); ok {
			if vals, ok := ev.([]any); ok && !slices.Contains(vals, nil) {
				o.set("enum", append(vals, nil))
			}
		}
		return o
	}
	if hasAny && !hasRef && ts == nil {
		subs, _ := o.get("anyOf")
		if branches, ok := subs.([]any); ok {
			o.set("anyOf", append(branches, &object{members: []member{{"type", "null"}}}))
			return o
		}
	}
	return &object{members: []member{{"anyOf", []any{o, &object{members: []member{{"type", "null"}}}}}}}
}
