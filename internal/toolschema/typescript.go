package toolschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpbridge/mcpbridge/internal/untrusted"
)

// The bounds of a TypeScript rendering: past them a part of the schema is
// shown as any, which loosens what the model is told and nothing else (the
// arguments are still checked against the schema).
const (
	maxTSNodes = 2000     // subschemas rendered
	maxTSDepth = 12       // nesting of types
	maxTSBytes = 16 << 10 // bytes of output
	maxTSUnion = 64       // members of one union (enum values, branches)
	maxTSDoc   = 1000     // characters of one doc comment
)

// Declaration renders a tool as a TypeScript method, for a model that
// writes code against the tool (package codemode) rather than calling it:
//
//	/** description */
//	name(args: <input schema>): Promise<<output schema>>;
//
// (args?: when the schema requires no argument)
//
// each line after the first at indent. The description is the method's doc
// comment; a tool without an output schema resolves to any.
//
// A schema is read as the vendor lowering reads it: local references are
// inlined (a recursive one becomes any, as a remote one does, since
// mcpbridge never fetches a schema), type arrays and anyOf or oneOf become
// unions, allOf an intersection, const and enum literal types, OpenAPI's
// nullable a union with null; a property's description becomes its doc
// comment, and what TypeScript cannot say (format, default, bounds,
// pattern) is added to it in words, as lowering for Gemini adds the format
// to the description. Properties keep the schema's order.
//
// Whatever the tool's text holds, the rendering is bounded (a part past
// the bounds is any, which loosens what the model is told and nothing else:
// the arguments are still checked against the schema) and it is
// TypeScript whose structure that text cannot change: descriptions are
// cleaned of what a reader cannot see and cannot close their comment,
// names and literals are quoted when they are not plain. A schema no
// validation could finish on (see [UnboundedError]) is any, with a
// sentence saying why in the doc comment.
func Declaration(name, description string, input, output json.RawMessage, indent string) string {
	in, err := typeScript(input, indent)
	if err != nil {
		in = "any"
		description = strings.TrimSpace(description + "\n(Its arguments' schema cannot be shown: " + err.Error() + ")")
	}
	out := "any"
	if len(bytes.TrimSpace(output)) > 0 {
		if o, err := typeScript(output, indent); err == nil {
			out = o
		}
	}
	args := "args"
	if noneRequired(input) {
		args += "?" // a call may leave them out
	}
	return docComment(description, indent, maxTSDoc) + indent + tsKey(name) + "(" + args + ": " + in + "): Promise<" + out + ">;\n"
}

// noneRequired reports whether a tool's input schema requires no
// argument: it is empty, or an object schema without a required list.
func noneRequired(s json.RawMessage) bool {
	trimmed := bytes.TrimSpace(s)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return true
	}
	root, err := decodeOrdered(trimmed)
	o, ok := root.(*object)
	if err != nil || !ok {
		return false
	}
	req, _ := get(o, "required").([]any)
	return len(req) == 0 && !o.has("$ref") && !o.has("allOf") && !o.has("anyOf") && !o.has("oneOf")
}

// typeScript renders the schema s as a TypeScript type, its lines after
// the first at indent; an empty schema is {}.
func typeScript(s json.RawMessage, indent string) (string, error) {
	trimmed := bytes.TrimSpace(s)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return "{}", nil
	}
	root, err := decodeOrdered(trimmed)
	if err != nil {
		return "", err
	}
	if err := newGraph(root).check(); err != nil {
		return "", err
	}
	w := &tsWriter{root: root}
	return w.typ(root, indent, 0, nil), nil
}

// tsWriter is the state of one rendering.
type tsWriter struct {
	root  any
	nodes int
	bytes int // written so far, roughly: the bound on output
}

// typ renders the schema s at nesting depth, indent being the indentation
// of the line it starts on; refs are the references being inlined.
func (w *tsWriter) typ(s any, indent string, depth int, refs []string) string {
	w.nodes++
	if w.nodes > maxTSNodes || depth > maxTSDepth || w.bytes > maxTSBytes {
		return "any"
	}
	var out string
	switch s := s.(type) {
	case bool:
		out = "any"
		if !s {
			out = "never"
		}
	case *object:
		out = w.object(s, indent, depth, refs)
	default:
		out = "any"
	}
	w.bytes += len(out)
	return out
}

// object renders an object schema: its own shape, combined with its
// branches and references.
func (w *tsWriter) object(o *object, indent string, depth int, refs []string) string {
	if t, ref, ok := w.target(o, refs); ok {
		return w.typ(t, indent, depth+1, append(refs[:len(refs):len(refs)], ref))
	} else if ref != "" {
		return "any"
	}
	var parts []string // intersected
	if lit, ok := literals(o); ok {
		parts = append(parts, lit)
	} else if own := w.shape(o, indent, depth, refs); own != "" {
		parts = append(parts, own)
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		if alts := w.branches(o, kw, indent, depth, refs); len(alts) > 0 {
			parts = append(parts, union(alts))
		}
	}
	parts = append(parts, w.branches(o, "allOf", indent, depth, refs)...)
	switch len(parts) {
	case 0:
		return "any"
	case 1:
		return withNull(parts[0], o)
	}
	for i, p := range parts {
		parts[i] = group(p, " | ", " & ")
	}
	return withNull(strings.Join(parts, " & "), o)
}

// target resolves o's $ref, if any: the schema it points at and the
// reference, ok false when o has none or it cannot be inlined (ref then
// set: remote, recursive or dangling).
func (w *tsWriter) target(o *object, refs []string) (any, string, bool) {
	v, has := o.get("$ref")
	if !has {
		return nil, "", false
	}
	ref, _ := v.(string)
	ptr, local := localRef(ref)
	if ref == "" || !local || slices.Contains(refs, ref) {
		return nil, "$ref", false
	}
	t, found := resolvePointer(w.root, ptr)
	if !found {
		return nil, ref, false
	}
	return t, ref, true
}

// branches renders the subschemas of kw (anyOf, oneOf, allOf) that say
// something of the value's shape: a branch that only adds a constraint
// (a required list, a bound) leaves the type as it is.
func (w *tsWriter) branches(o *object, kw, indent string, depth int, refs []string) []string {
	subs, _ := get(o, kw).([]any)
	var out []string
	for _, sub := range subs {
		if len(out) == maxTSUnion {
			return append(out, "any")
		}
		if so, ok := sub.(*object); ok && !shaped(so) {
			continue
		}
		out = append(out, w.typ(sub, indent, depth+1, refs))
	}
	return out
}

// shaped reports whether a schema says what kind of value it takes.
func shaped(o *object) bool {
	for _, k := range []string{"type", "properties", "items", "prefixItems", "$ref", "const", "enum", "anyOf", "oneOf", "allOf", "additionalProperties"} {
		if o.has(k) {
			return true
		}
	}
	return false
}

// literals renders const or enum as a union of literal types.
func literals(o *object) (string, bool) {
	if v, ok := o.get("const"); ok {
		return tsLiteral(v), true
	}
	vals, ok := get(o, "enum").([]any)
	if !ok || len(vals) == 0 {
		return "", false
	}
	var lits []string
	for _, v := range vals {
		if len(lits) == maxTSUnion {
			lits = append(lits, "any")
			break
		}
		lits = append(lits, tsLiteral(v))
	}
	return union(lits), true
}

// shape renders what o's type keywords say: a union over its types, ""
// when it says nothing.
func (w *tsWriter) shape(o *object, indent string, depth int, refs []string) string {
	types := typeNames(o)
	if len(types) == 0 {
		switch {
		case o.has("properties") || o.has("additionalProperties") || o.has("patternProperties"):
			types = []string{"object"}
		case o.has("items") || o.has("prefixItems"):
			types = []string{"array"}
		}
	}
	var alts []string
	for _, t := range types {
		switch t {
		case "string", "boolean", "null":
			alts = append(alts, t)
		case "integer", "number":
			alts = append(alts, "number")
		case "array":
			alts = append(alts, w.array(o, indent, depth, refs))
		case "object":
			alts = append(alts, w.props(o, indent, depth, refs))
		}
	}
	return union(alts)
}

// array renders an array schema: a tuple for prefixItems (or draft-07's
// items array), else the item type's array.
func (w *tsWriter) array(o *object, indent string, depth int, refs []string) string {
	tuple, _ := get(o, "prefixItems").([]any)
	items, hasItems := o.get("items")
	if arr, ok := items.([]any); ok {
		tuple, hasItems = arr, false
	}
	if len(tuple) > 0 {
		var elems []string
		for _, e := range tuple {
			if len(elems) == maxTSUnion {
				break
			}
			elems = append(elems, w.typ(e, indent, depth+1, refs))
		}
		if hasItems && items != false {
			elems = append(elems, "..."+group(w.typ(items, indent, depth+1, refs), " | ", " & ")+"[]")
		}
		return "[" + strings.Join(elems, ", ") + "]"
	}
	if !hasItems {
		return "any[]"
	}
	return group(w.typ(items, indent, depth+1, refs), " | ", " & ") + "[]"
}

// props renders an object type, a property a line with its doc comment.
func (w *tsWriter) props(o *object, indent string, depth int, refs []string) string {
	props, _ := get(o, "properties").(*object)
	rest, hasRest := o.get("additionalProperties")
	if pp, ok := get(o, "patternProperties").(*object); ok && !hasRest && len(pp.members) > 0 {
		rest, hasRest = pp.members[0].val, true
	}
	if props == nil || len(props.members) == 0 {
		switch {
		case hasRest && rest == false:
			return "{}"
		case hasRest:
			return "Record<string, " + w.typ(rest, indent, depth+1, refs) + ">"
		}
		return "Record<string, any>"
	}
	required := map[string]bool{}
	if req, ok := get(o, "required").([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	inner := indent + "  "
	var b strings.Builder
	b.WriteString("{\n")
	for _, m := range props.members {
		if w.bytes+b.Len() > maxTSBytes {
			b.WriteString(inner + "[key: string]: any;\n")
			break
		}
		b.WriteString(w.doc(m.val, inner))
		b.WriteString(inner + tsKey(m.key))
		if !required[m.key] {
			b.WriteByte('?')
		}
		b.WriteString(": " + w.typ(m.val, inner, depth+1, refs) + ";\n")
	}
	if hasRest && rest != false {
		b.WriteString(inner + "[key: string]: " + w.typ(rest, inner, depth+1, refs) + ";\n")
	}
	b.WriteString(indent + "}")
	return b.String()
}

// doc renders the doc comment of a property's schema s: its description
// (its reference's, if it has none) and, in words, what its type cannot
// say; "" when there is nothing to say.
func (w *tsWriter) doc(s any, indent string) string {
	o, ok := s.(*object)
	if !ok {
		return ""
	}
	desc, _ := get(o, "description").(string)
	if t, _, ok := w.target(o, nil); ok && desc == "" {
		if to, ok := t.(*object); ok {
			desc, _ = get(to, "description").(string)
		}
	}
	text := strings.TrimSpace(desc)
	for _, f := range []struct{ kw, say string }{
		{"format", "Format"}, {"default", "Default"}, {"minimum", "Minimum"}, {"maximum", "Maximum"},
		{"exclusiveMinimum", "Greater than"}, {"exclusiveMaximum", "Less than"},
		{"minLength", "Minimum length"}, {"maxLength", "Maximum length"}, {"pattern", "Pattern"},
		{"minItems", "Minimum items"}, {"maxItems", "Maximum items"},
	} {
		v, ok := o.get(f.kw)
		if !ok {
			continue
		}
		val := string(encodeOrdered(v))
		if str, ok := v.(string); ok && f.kw != "default" {
			val = str
		}
		if text != "" && !strings.ContainsAny(text[len(text)-1:], ".!?") {
			text += "."
		}
		text = strings.TrimSpace(text + " " + f.say + ": " + val + ".")
	}
	if d, _ := get(o, "deprecated").(bool); d {
		text = strings.TrimSpace(text + " Deprecated.")
	}
	return docComment(text, indent, maxTSDoc)
}

// docComment renders text as a TypeScript doc comment at indent, cut to
// at most n characters (n <= 0: no bound), "" for an empty text. The text
// is cleaned of what a reader cannot see and cannot end the comment: it is
// a server's, and must stay inside it.
func docComment(text, indent string, n int) string {
	text = strings.TrimSpace(untrusted.Cut(untrusted.Text(text), n))
	if text == "" {
		return ""
	}
	text = strings.ReplaceAll(text, "*/", "*\\/")
	lines := strings.Split(text, "\n")
	if len(lines) == 1 {
		return indent + "/** " + lines[0] + " */\n"
	}
	var b strings.Builder
	b.WriteString(indent + "/**\n")
	for _, l := range lines {
		b.WriteString(strings.TrimRight(indent+" * "+l, " ") + "\n")
	}
	b.WriteString(indent + " */\n")
	return b.String()
}

// withNull adds null to t when o is OpenAPI's nullable.
func withNull(t string, o *object) string {
	if n, _ := get(o, "nullable").(bool); n && t != "any" && !strings.HasSuffix(t, " | null") {
		return group(t, " & ") + " | null"
	}
	return t
}

// union joins alternatives, each once.
func union(alts []string) string {
	var out []string
	for _, a := range alts {
		if a == "any" {
			return "any"
		}
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return strings.Join(out, " | ")
}

// group parenthesizes t when it holds one of ops at its top level, so
// that it binds as one type where it is placed.
func group(t string, ops ...string) string {
	depth := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '{', '(', '[', '<':
			depth++
		case '}', ')', ']', '>':
			depth--
		case '"':
			for i++; i < len(t) && t[i] != '"'; i++ {
				if t[i] == '\\' {
					i++
				}
			}
		case ' ':
			if depth == 0 {
				for _, op := range ops {
					if strings.HasPrefix(t[i:], op) {
						return "(" + t + ")"
					}
				}
			}
		}
	}
	return t
}

// tsKey is a property name as an object type writes it: bare when it is
// an identifier, else quoted.
func tsKey(k string) string {
	if isIdentifier(k) {
		return k
	}
	return tsString(k)
}

// isIdentifier reports whether s is an ASCII JavaScript identifier name
// (letters, digits, '_' and '$', not starting with a digit), which an
// object type writes bare.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// tsLiteral renders a JSON value as a literal type.
func tsLiteral(v any) string {
	switch v := v.(type) {
	case string:
		return tsString(v)
	case json.Number, bool, nil:
		return string(encodeOrdered(v))
	}
	return "any" // an object or array literal has no literal type
}

// tsString quotes s as a JavaScript string literal, every character a
// reader cannot see written as an escape, so that the literal shows what
// the value holds.
func tsString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == utf8.RuneError || untrusted.Invisible(r) || r == '\u2028' || r == '\u2029':
			if r > 0xffff {
				r -= 0x10000
				fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
				continue
			}
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
