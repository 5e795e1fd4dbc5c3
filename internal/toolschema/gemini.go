package toolschema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// The Gemini API takes function parameters as its Schema object, "a select
// subset of an OpenAPI 3.0 schema object" (Gemini API reference, Schema;
// google-genai SDK types.Schema). Its fields are: type (one value), format,
// title, description, nullable, enum (strings), items, properties, required,
// propertyOrdering, anyOf, minItems, maxItems, minLength, maxLength, pattern,
// minProperties, maxProperties, minimum, maximum, default, example. There is
// no $ref/$defs, no type array, no additionalProperties, oneOf, allOf, not or
// const. Formats: "enum" and "date-time" for strings, "float"/"double" and
// "int32"/"int64" for numbers (Gemini API Schema.format; Firebase AI Logic
// says other string formats make Gemini Developer API requests fail).
//
// Newer Gemini models also take parametersJsonSchema (full JSON Schema);
// lowering targets the Schema object, which every model accepts.
var geminiKept = map[string]bool{
	"type": true, "format": true, "title": true, "description": true, "nullable": true,
	"enum": true, "items": true, "properties": true, "required": true,
	"propertyOrdering": true, "anyOf": true, "minItems": true, "maxItems": true,
	"minLength": true, "maxLength": true, "pattern": true, "minProperties": true,
	"maxProperties": true, "minimum": true, "maximum": true, "default": true, "example": true,
}

// maxInlined bounds the subschemas one Gemini lowering may produce.
const maxInlined = 10000

var geminiFormats = map[string]map[string]bool{
	"string":  {"enum": true, "date-time": true},
	"number":  {"float": true, "double": true},
	"integer": {"int32": true, "int64": true},
}

// geminiTypeKeywords says which keywords belong to which type, to split a
// schema with a type array of several types into anyOf branches.
var geminiTypeKeywords = map[string]string{
	"items": "array", "minItems": "array", "maxItems": "array",
	"properties": "object", "required": "object", "propertyOrdering": "object",
	"minProperties": "object", "maxProperties": "object",
	"minLength": "string", "maxLength": "string", "pattern": "string",
	"minimum": "number", "maximum": "number",
}

// gemini lowers l.root:
//   - a local $ref ("#/$defs/x", "#/definitions/x", any "#/..." pointer) is
//     replaced by a copy of its target, its sibling keywords laid over it; a
//     recursive reference cannot be inlined (fatal), nor can a remote one;
//   - "type": ["string","null"] becomes "type":"string" + "nullable":true,
//     several non-null types become anyOf branches;
//   - const becomes a one-value enum; null in an enum becomes nullable;
//     an enum of non-strings is moved into the description;
//   - oneOf becomes anyOf (exclusivity is not enforced by the model);
//   - allOf of plain object schemas is merged, anything else is fatal;
//   - every other keyword Gemini lacks is dropped with a diagnostic;
//   - an object below the root without properties (free-form) becomes a
//     string holding JSON: Gemini refuses an object schema without
//     properties, and [DecodeStringified] turns the string back into the
//     object the server's schema asks for.
func (l *lowering) gemini() json.RawMessage {
	l.origin = map[*object]string{}
	out := l.gem(l.root, "", nil)
	l.gemFreeForm(out, "", "", map[string]bool{})
	if o, ok := out.(*object); ok {
		if !o.has("type") && !o.has("anyOf") {
			o.set("type", "object")
		}
		if ts := typeNames(o); len(ts) == 1 && ts[0] == "object" && !o.has("properties") {
			o.set("properties", &object{})
		}
	}
	if l.hasFatal() {
		return nil
	}
	return encodeOrdered(out)
}

func (l *lowering) hasFatal() bool {
	for _, d := range l.diags {
		if d.Fatal {
			return true
		}
	}
	return false
}

// gem lowers the schema s found at ptr; refs holds the references being
// inlined, to catch recursion.
func (l *lowering) gem(s any, ptr string, refs []string) any {
	if len(refs) > 64 {
		l.fatal(ptr, "$ref", "references nested too deeply to inline")
		return &object{}
	}
	// Inlining can grow a schema exponentially (a definition referring twice
	// to one referring twice ...): bound the work.
	if l.nodes++; l.nodes > maxInlined {
		if l.nodes == maxInlined+1 {
			l.fatal(ptr, "$ref", "schema too large once references are inlined (over %d subschemas)", maxInlined)
		}
		return &object{}
	}
	switch s := s.(type) {
	case bool:
		if !s {
			l.fatal(ptr, "", "schema false accepts nothing; Gemini cannot express it")
		}
		return &object{}
	case *object:
		return l.gemObject(s, ptr, refs)
	}
	l.fatal(ptr, "", "not a schema (want an object or a boolean)")
	return &object{}
}

// gemObject lowers the object schema s found at ptr, keyword by keyword
// (see [gemNode.keyword]); a schema with "$ref" is inlined by gemRef.
func (l *lowering) gemObject(s *object, ptr string, refs []string) any {
	if ref, ok := s.get("$ref"); ok {
		return l.gemRef(s, ref, ptr, refs)
	}
	n := &gemNode{l: l, src: s, out: &object{}, ptr: ptr, refs: refs}
	for _, m := range s.members {
		n.keyword(m, pointerJoin(ptr, m.key))
	}
	out := n.out
	if n.split { // the type-specific keywords went into the branches
		for k := range geminiTypeKeywords {
			out.del(k)
		}
		out.del("format")
	}
	if n.nullable {
		out.set("nullable", true)
	}
	l.charge(out, ptr)
	l.origin[out] = ptr
	return out
}

// A gemNode is an object schema being lowered for Gemini: src, found at
// ptr, becomes out.
type gemNode struct {
	l        *lowering
	src, out *object
	ptr      string
	refs     []string // the references being inlined
	nullable bool     // null is among the types, enum values or branches
	split    bool     // several types became anyOf branches
}

// keyword lowers the keyword m, found at kp, into n.out.
func (n *gemNode) keyword(m member, kp string) {
	switch m.key {
	case "$defs", "definitions":
		// Inlined where referenced.
	case "type":
		n.types(kp)
	case "const":
		n.values([]any{m.val}, kp, "const")
	case "enum":
		n.enum(m.val, kp)
	case "oneOf", "anyOf":
		n.branches(m, kp)
	case "allOf":
		n.l.gemAllOf(n.out, m.val, kp, n.refs)
	case "properties":
		n.properties(m.val, kp)
	case "items":
		n.items(m.val, kp)
	case "format":
		n.format(m.val, kp)
	case "exclusiveMinimum", "exclusiveMaximum":
		n.l.note(kp, m.key, "dropped %s: Gemini has only minimum and maximum", m.key)
	default:
		n.other(m, kp)
	}
}

// types keeps one type, a null one as nullable; several become anyOf
// branches.
func (n *gemNode) types(kp string) {
	types := typeNames(n.src)
	var nonNull []string
	for _, t := range types {
		if t == "null" {
			n.nullable = true
		} else {
			nonNull = append(nonNull, t)
		}
	}
	switch {
	case len(nonNull) == 1:
		n.out.set("type", nonNull[0])
	case len(nonNull) > 1:
		n.split = true
		n.out.set("anyOf", splitTypes(n.src, nonNull, n.l, n.ptr, n.refs))
	case len(types) == 0:
		n.l.fatal(kp, "type", "malformed type")
	}
}

func (n *gemNode) enum(v any, kp string) {
	vals, ok := v.([]any)
	if !ok {
		n.l.fatal(kp, "enum", "enum is not an array")
		return
	}
	n.values(vals, kp, "enum")
}

// values sets the enum from vals, of "enum" or "const" (kw): null makes
// the schema nullable, and values that are not all strings are said in the
// description instead, after the schema's own.
func (n *gemNode) values(vals []any, kp, kw string) {
	var strs []any
	var other []string
	for _, v := range vals {
		switch v := v.(type) {
		case nil:
			n.nullable = true
		case string:
			strs = append(strs, v)
		default:
			other = append(other, string(encodeOrdered(v)))
		}
	}
	if len(other) > 0 {
		all := make([]string, 0, len(vals))
		for _, v := range vals {
			all = append(all, string(encodeOrdered(v)))
		}
		n.l.note(kp, kw, "moved %s into the description: Gemini's enum holds only strings", kw)
		appendDescription(n.out, n.src, "One of: "+strings.Join(all, ", ")+".")
		return
	}
	if kw == "const" {
		n.l.note(kp, kw, "const became a one-value enum")
	}
	if len(strs) > 0 {
		n.out.set("enum", strs)
	}
}

// branches lowers oneOf or anyOf into anyOf: a null branch makes the
// schema nullable, and a single branch left is merged into the schema.
func (n *gemNode) branches(m member, kp string) {
	subs, ok := m.val.([]any)
	if !ok {
		n.l.fatal(kp, m.key, "%s is not an array", m.key)
		return
	}
	if m.key == "oneOf" {
		n.l.note(kp, "oneOf", "oneOf became anyOf: Gemini has no oneOf, so exclusivity is not enforced")
	}
	var branches []any
	for i, sub := range subs {
		b := n.l.gem(sub, pointerJoin(kp, itoa(i)), n.refs)
		if isNullSchema(b) {
			n.nullable = true
			continue
		}
		branches = append(branches, b)
	}
	if len(branches) == 1 && !n.out.has("anyOf") {
		mergeInto(n.out, branches[0].(*object))
	} else if len(branches) > 0 {
		if prev, ok := n.out.get("anyOf"); ok {
			branches = append(prev.([]any), branches...)
		}
		n.out.set("anyOf", branches)
	}
}

func (n *gemNode) properties(v any, kp string) {
	props, ok := v.(*object)
	if !ok {
		n.l.fatal(kp, "properties", "properties is not an object")
		return
	}
	lp := &object{}
	for _, p := range props.members {
		lp.set(p.key, n.l.gem(p.val, pointerJoin(kp, p.key), n.refs))
	}
	n.out.set("properties", lp)
}

// items lowers the item schema; a draft-07 tuple becomes one item schema
// whose anyOf holds the tuple's.
func (n *gemNode) items(v any, kp string) {
	tuple, ok := v.([]any)
	if !ok {
		n.out.set("items", n.l.gem(v, kp, n.refs))
		return
	}
	var bs []any
	for i, sub := range tuple {
		bs = append(bs, n.l.gem(sub, pointerJoin(kp, itoa(i)), n.refs))
	}
	n.l.note(kp, "items", "tuple items became one item schema (anyOf): Gemini has no tuples")
	n.out.set("items", &object{members: []member{{"anyOf", bs}}})
}

// format keeps a format Gemini takes for the schema's (first) type, and
// says any other in the description.
func (n *gemNode) format(v any, kp string) {
	f, _ := v.(string)
	t := ""
	if ts := typeNames(n.src); len(ts) > 0 {
		t = ts[0]
	}
	if geminiFormats[t][f] {
		n.out.set("format", f)
		return
	}
	n.l.note(kp, "format", "dropped format %q: Gemini accepts only enum and date-time for strings, float/double, int32/int64 for numbers", f)
	appendDescription(n.out, n.src, fmt.Sprintf("Format: %s.", f))
}

// other keeps a keyword of Gemini's Schema object as it is, unless a
// description was already written (by a moved enum or format), and drops
// any other.
func (n *gemNode) other(m member, kp string) {
	if !geminiKept[m.key] {
		if !silent[m.key] {
			n.l.note(kp, m.key, "dropped %s: not in Gemini's Schema object", m.key)
		}
		return
	}
	if _, done := n.out.get(m.key); !done || m.key != "description" {
		n.out.set(m.key, m.val)
	}
}

// charge counts the bytes out adds to the lowered schema, its subschemas
// aside (each is charged as it is made). Inlining writes a target's values
// (a description, a default, an enum) once per reference to it, so a small
// schema can lower to a huge one: past maxBytes, lowering fails.
func (l *lowering) charge(out *object, ptr string) {
	if l.bytes > l.maxBytes {
		return // already fatal
	}
	for _, m := range out.members {
		l.bytes += len(m.key) + 4
		switch m.key {
		case "properties":
			if p, ok := m.val.(*object); ok {
				for _, pm := range p.members {
					l.bytes += len(pm.key) + 4
				}
			}
		case "items", "anyOf":
		default:
			l.bytes += jsonSize(m.val, l.maxBytes-l.bytes+1)
		}
	}
	if l.bytes > l.maxBytes {
		l.fatal(ptr, "$ref", "schema too large once references are inlined (over %d bytes)", l.maxBytes)
	}
}

// gemRef inlines a local reference.
func (l *lowering) gemRef(s *object, refv any, ptr string, refs []string) any {
	kp := pointerJoin(ptr, "$ref")
	ref, _ := refv.(string)
	target, ok := localRef(ref)
	if !ok {
		l.fatal(kp, "$ref", "reference %q is not local to the schema; mcpbridge never fetches schemas", ref)
		return &object{}
	}
	for _, r := range refs {
		if r == ref {
			l.fatal(kp, "$ref", "reference %q is recursive; Gemini's Schema cannot express recursion", ref)
			return &object{}
		}
	}
	t, found := resolvePointer(l.root, target)
	if !found {
		l.fatal(kp, "$ref", "reference %q points at nothing", ref)
		return &object{}
	}
	lowered := l.gem(t, target, append(refs[:len(refs):len(refs)], ref))
	siblings := &object{}
	for _, m := range s.members {
		if m.key != "$ref" {
			siblings.set(m.key, m.val)
		}
	}
	if len(siblings.members) == 0 {
		return lowered
	}
	// A shallow copy: the lowered target is this reference's own, and a
	// deep one would copy the values it shares with every other place the
	// target is inlined.
	o := lowered.(*object)
	out := &object{members: slices.Clone(o.members)}
	if p, ok := l.origin[o]; ok {
		l.origin[out] = p // what makes it free-form, if anything, is the target's
	}
	mergeInto(out, l.gem(siblings, ptr, refs).(*object))
	return out
}

// gemAllOf merges allOf branches that are plain object schemas into out.
func (l *lowering) gemAllOf(out *object, v any, ptr string, refs []string) {
	subs, ok := v.([]any)
	if !ok {
		l.fatal(ptr, "allOf", "allOf is not an array")
		return
	}
	for i, sub := range subs {
		sp := pointerJoin(ptr, itoa(i))
		b, _ := l.gem(sub, sp, refs).(*object)
		if b == nil {
			continue
		}
		for _, m := range b.members {
			switch m.key {
			case "type":
				if m.val != "object" {
					l.fatal(sp, "allOf", "allOf of non-object schemas cannot be merged for Gemini")
					return
				}
				out.set("type", "object")
			case "properties":
				props, _ := out.get("properties")
				po, _ := props.(*object)
				if po == nil {
					po = &object{}
				}
				for _, p := range m.val.(*object).members {
					if po.has(p.key) {
						l.fatal(sp, "allOf", "allOf branches both define property %q; cannot merge for Gemini", p.key)
						return
					}
					po.set(p.key, p.val)
				}
				out.set("properties", po)
			case "required":
				prev, _ := out.get("required")
				pr, _ := prev.([]any)
				rq, _ := m.val.([]any)
				out.set("required", append(pr, rq...))
			case "description", "title":
				if !out.has(m.key) {
					out.set(m.key, m.val)
				}
			default:
				l.fatal(sp, "allOf", "allOf branch has %q; only plain object schemas can be merged for Gemini", m.key)
				return
			}
		}
	}
	l.note(ptr, "allOf", "allOf merged into one object schema")
}

// splitTypes turns a schema with several types into anyOf branches, each
// taking the keywords of its type.
func splitTypes(s *object, types []string, l *lowering, ptr string, refs []string) []any {
	l.note(pointerJoin(ptr, "type"), "type", "type array %v became anyOf: Gemini takes one type per schema", types)
	var bs []any
	for _, t := range types {
		b := &object{members: []member{{"type", t}}}
		for _, m := range s.members {
			kt := geminiTypeKeywords[m.key]
			if kt == t || kt == "number" && t == "integer" {
				sub := l.gemObject(&object{members: []member{{"type", t}, {m.key, m.val}}}, ptr, refs).(*object)
				if v, ok := sub.get(m.key); ok {
					b.set(m.key, v)
				}
			}
		}
		bs = append(bs, b)
	}
	return bs
}

// mergeInto lays src's keywords over dst.
func mergeInto(dst, src *object) {
	for _, m := range src.members {
		dst.set(m.key, m.val)
	}
}

func isNullSchema(v any) bool {
	o, ok := v.(*object)
	if !ok {
		return false
	}
	// A lowered {"type":"null"} is {"nullable":true}.
	n, _ := o.get("nullable")
	return n == true && len(o.members) == 1
}

func appendDescription(out, orig *object, text string) {
	d, ok := out.get("description")
	if !ok && orig != nil {
		d, ok = orig.get("description")
	}
	if s, _ := d.(string); ok && strings.TrimSpace(s) != "" {
		s = strings.TrimSpace(s)
		if !strings.ContainsAny(s[len(s)-1:], ".!?") {
			s += "." // the added sentence is not read as part of the last one
		}
		out.set("description", s+" "+text)
		return
	}
	out.set("description", text)
}

// gemFreeForm rewrites, below the lowered schema v found at ptr in the
// output, every object schema without properties as a string schema asking
// for JSON. It runs on the lowered tree, so that properties merged from
// allOf, oneOf or a $ref count; but a diagnostic points into the original
// schema, so each note is made at orig, the original pointer of v or of the
// nearest schema above it that has one (a $ref target, a oneOf branch). A
// target inlined twice is noted once.
func (l *lowering) gemFreeForm(v any, ptr, orig string, noted map[string]bool) {
	o, ok := v.(*object)
	if !ok {
		return
	}
	if p, ok := l.origin[o]; ok {
		orig = p
	}
	if ptr != "" {
		ts := typeNames(o)
		props, _ := o.get("properties")
		po, _ := props.(*object)
		if len(ts) == 1 && ts[0] == "object" && (po == nil || len(po.members) == 0) {
			for _, k := range []string{"properties", "required", "propertyOrdering", "minProperties", "maxProperties"} {
				o.del(k)
			}
			o.set("type", "string")
			appendDescription(o, nil, "A JSON object, written as a string.")
			if !noted[orig] {
				noted[orig] = true
				l.note(orig, "properties", "free-form object became a string holding JSON: Gemini refuses an object without properties")
			}
			return
		}
	}
	if props, ok := o.get("properties"); ok {
		if po, ok := props.(*object); ok {
			for _, p := range po.members {
				l.gemFreeForm(p.val, pointerJoin(pointerJoin(ptr, "properties"), p.key), orig, noted)
			}
		}
	}
	if it, ok := o.get("items"); ok {
		l.gemFreeForm(it, pointerJoin(ptr, "items"), orig, noted)
	}
	if av, ok := o.get("anyOf"); ok {
		bs, _ := av.([]any)
		for i, b := range bs {
			l.gemFreeForm(b, pointerJoin(pointerJoin(ptr, "anyOf"), itoa(i)), orig, noted)
		}
	}
}
