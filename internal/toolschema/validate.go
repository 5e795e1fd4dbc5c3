package toolschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpbridge/mcpbridge/internal/plural"
)

// A Validator checks a tool's arguments against the tool's own input schema
// (not a lowered one) before anything is sent to the server, or a tool's
// structured result against its output schema.
//
// The verdict is jsonschema-go's (draft 2020-12 and draft-07); where a
// schema uses only the common keywords, a plain check that accepts only
// what jsonschema-go accepts spares running it on valid values. The message
// of a refusal is built by this package, so that a model can read which
// argument is wrong and why, e.g. `argument "count": want integer, got
// string`. A Validator is safe for concurrent use.
//
// A schema comes from an untrusted server, so validation is bounded: a
// schema that no validation could finish on is refused by [Compile] (see
// [UnboundedError]), and a value whose validation would take too much work
// for its size is refused with [ErrTooComplex] before it starts.
type Validator struct {
	resolved *jsonschema.Resolved
	root     any        // the schema as ordered JSON, to locate failures
	graph    *graph     // the schema as validation follows it, to meter it
	plain    *plainNode // the plain check (fast.go), or nil
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
	// Err is the cause when it is not the schema's verdict: [ErrTooComplex].
	Err error
}

// Error returns the message, meant to be shown to the model as is.
func (e *ValidationError) Error() string { return e.Message }

// Unwrap returns Err.
func (e *ValidationError) Unwrap() error { return e.Err }

var supportedDrafts = []string{
	"http://json-schema.org/draft-07/schema#",
	"https://json-schema.org/draft-07/schema#",
	"https://json-schema.org/draft/2020-12/schema",
}

// Compile prepares schema for [Validator.Validate] and
// [Validator.ValidateValue]. An empty schema accepts anything. "$ref" is
// followed only within the schema: a remote reference is an error, never a
// fetch. A "$schema" naming draft-07 or 2020-12 selects that draft; any other
// "$schema" (draft-04, 2019-09, a draft without the trailing '#') is removed,
// and the schema read as 2020-12, because MCP servers declare drafts loosely
// and jsonschema-go refuses the ones it does not know. A schema no
// validation could finish on is an *[UnboundedError].
func Compile(schema json.RawMessage) (*Validator, error) {
	if len(strings.TrimSpace(string(schema))) == 0 {
		schema = json.RawMessage(`{}`)
	}
	root, err := decodeOrdered(schema)
	if err != nil {
		return nil, fmt.Errorf("schema: compiling: %w", err)
	}
	g := newGraph(root)
	for o := range g.ptrs {
		exactKeywords(o)
	}
	if err := g.check(); err != nil {
		return nil, err
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
		return nil, fmt.Errorf("schema: compiling: %w", err)
	}
	rs, err := s.Resolve(nil) // no Loader: a remote $ref fails
	if err != nil {
		return nil, fmt.Errorf("schema: compiling: %w", err)
	}
	return &Validator{resolved: rs, root: root, graph: g, plain: plainSchema(rs.Schema())}, nil
}

// schemaFields are the keywords jsonschema-go reads, by the JSON names of
// its Schema's fields.
var schemaFields = func() []string {
	names := []string{"type", "items", "dependencies", "const"} // decoded apart
	st := reflect.TypeFor[jsonschema.Schema]()
	for i := range st.NumField() {
		if name, _, _ := strings.Cut(st.Field(i).Tag.Get("json"), ","); name != "-" && name != "" {
			names = append(names, name)
		}
	}
	return names
}()

// exactKeywords removes from the schema o every key that differs from a
// keyword jsonschema-go reads only in case ("AllOf", "$REF"). JSON Schema
// keywords are case-sensitive, and the check of [UnboundedError] follows them
// exactly; but jsonschema-go decodes a schema with encoding/json, which
// matches a struct field's name regardless of case, so it would apply such
// keys, unchecked.
func exactKeywords(o *object) {
	kept := o.members[:0]
	for _, m := range o.members {
		folded := false
		for _, f := range schemaFields {
			if strings.EqualFold(m.key, f) {
				folded = m.key != f
				break
			}
		}
		if !folded {
			kept = append(kept, m)
		}
	}
	o.members = kept
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
	if v.plain != nil && v.plain.accepts(a) {
		return nil
	}
	return v.judge(a)
}

// judge is validate by jsonschema-go alone: its verdict, the failures
// located for a model.
func (v *Validator) judge(a any) error {
	inst, err := v.admit(a)
	if errors.Is(err, ErrTooComplex) {
		return &ValidationError{Message: "the arguments cannot be checked against the input schema: " + err.Error(), Err: err}
	}
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
	return &ValidationError{Message: "arguments do not match the input schema: " + verdict(err)}
}

// ValidateValue checks value, any JSON value, and returns nil or an error
// giving jsonschema-go's verdict as it is: for a value a host reads about,
// such as a tool's structured result, rather than arguments a model must
// fix. A value whose validation would take too much work is refused with an
// error wrapping [ErrTooComplex].
func (v *Validator) ValidateValue(value json.RawMessage) error {
	a, err := decodeOrdered(value)
	if err != nil {
		return err
	}
	if v.plain != nil && v.plain.accepts(a) {
		return nil
	}
	inst, err := v.admit(a)
	if err != nil {
		return err
	}
	if err := v.resolved.Validate(inst); err != nil {
		return errors.New(verdict(err))
	}
	return nil
}

// admit converts a, a value as decodeOrdered returns it, to what
// jsonschema-go validates, and meters that validation.
func (v *Validator) admit(a any) (any, error) {
	var size measure
	inst, err := plain(a, &size)
	if err != nil {
		return nil, err
	}
	if err := newMeter(v.graph, size).check(inst); err != nil {
		return nil, err
	}
	return inst, nil
}

// maxVerdict bounds a message of jsonschema-go passed on.
const maxVerdict = 2000

// verdict is jsonschema-go's message without its "validating <schema>: "
// prefixes, cut to maxVerdict bytes.
func verdict(err error) string {
	msg := err.Error()
	for strings.HasPrefix(msg, "validating ") {
		i := strings.Index(msg, ": ")
		if i < 0 {
			break
		}
		msg = msg[i+2:]
	}
	if len(msg) > maxVerdict {
		msg = strings.ToValidUTF8(msg[:maxVerdict], "") + " […]"
	}
	return msg
}

// plain turns a value decodeOrdered returns into what jsonschema-go
// validates (what json.Unmarshal into an any returns, its containers of the
// types of work.go), without parsing the JSON again, adding its size to
// size.
func plain(v any, size *measure) (any, error) {
	size.values++
	switch v := v.(type) {
	case *object:
		m := make(jsonObject, len(v.members))
		size.bytes += 2
		for _, mb := range v.members {
			e, err := plain(mb.val, size)
			if err != nil {
				return nil, err
			}
			m[mb.key] = e
			size.bytes += len(mb.key) + 4
		}
		return m, nil
	case []any:
		s := make(jsonArray, len(v))
		size.bytes += 2
		for i, e := range v {
			var err error
			if s[i], err = plain(e, size); err != nil {
				return nil, err
			}
			size.bytes++
		}
		return s, nil
	case json.Number:
		size.bytes += len(v)
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return nil, fmt.Errorf("number %s: %w", v, err) // out of range, as json.Unmarshal finds
		}
		return f, nil
	case string:
		size.bytes += len(v) + 2
	default:
		size.bytes += 5
	}
	return v, nil
}

// maxProblems bounds the problems one ValidationError lists.
const maxProblems = 10

// locator finds the failures of the common keywords, each with its place.
type locator struct {
	root  any
	errs  []*ValidationError
	steps int                       // subschemas visited, up to maxLocate
	res   map[string]*regexp.Regexp // patterns compiled so far
}

// maxLocate bounds the subschemas the locator visits: a schema can apply
// itself many times to each part of a value, and what is not located in
// time is said by jsonschema-go's verdict.
const maxLocate = 1 << 14

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

// numbers returns a value and a keyword's bound as numbers, or ok false
// unless both are.
func numbers(v, bound any) (f, m float64, ok bool) {
	f, okV := number(v)
	m, okB := number(bound)
	return f, m, okV && okB
}

func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

// find adds the problems schema s finds with inst, the value at path, and
// those of its items and members. jsonschema-go has already decided that
// the arguments fail, but its error names neither the value nor the keyword
// at fault (it says the first failure, in the schema's terms), so the
// locator reads the common keywords again, each as [keywordChecks] says.
// What it does not read is said by jsonschema-go's verdict.
func (l *locator) find(s, inst any, path []seg, depth int) {
	if l.steps++; depth > 64 || len(l.errs) >= maxProblems || l.steps > maxLocate {
		return
	}
	o, ok := s.(*object)
	if !ok {
		if s == false {
			l.fail(path, "not allowed")
		}
		return
	}
	at := place{inst: inst, path: path, depth: depth}
	l.ref(o, at)
	if !l.typeMatches(o, at) {
		return // the other keywords are about a value of another type
	}
	for _, c := range keywordChecks {
		if kv, ok := o.get(c.keyword); ok {
			c.check(l, kv, at)
		}
	}
	switch in := inst.(type) {
	case []any:
		l.items(o, in, at)
	case *object:
		l.members(o, in, at)
	}
}

// A place is a value of the arguments the locator checks, with its path and
// the depth of the schemas that led to it.
type place struct {
	inst  any
	path  []seg
	depth int
}

// keywordChecks are the keywords the locator reads after "$ref" and
// "type", each with its check of the keyword's value kv, in the order their
// problems are said. Each check looks only at values of its type.
var keywordChecks = []struct {
	keyword string
	check   func(l *locator, kv any, at place)
}{
	{"enum", (*locator).enum},
	{"const", (*locator).constant},
	{"minimum", (*locator).minimum},
	{"maximum", (*locator).maximum},
	{"minLength", (*locator).minLength},
	{"maxLength", (*locator).maxLength},
	{"pattern", (*locator).pattern},
	{"minItems", (*locator).minItems},
	{"maxItems", (*locator).maxItems},
	{"required", (*locator).required},
}

// ref finds the problems of a local "$ref"'s target; draft-07 ignores the
// keywords beside it, but the locator reads them as 2020-12 does.
func (l *locator) ref(o *object, at place) {
	ref, ok := o.get("$ref")
	if !ok {
		return
	}
	r, _ := ref.(string)
	if ptr, local := localRef(r); local {
		if t, found := resolvePointer(l.root, ptr); found {
			l.find(t, at.inst, at.path, at.depth+1)
		}
	}
}

// typeMatches reports whether the value is of a type o allows (an integer
// is a number), saying so when it is not.
func (l *locator) typeMatches(o *object, at place) bool {
	ts := typeNames(o)
	if ts == nil {
		return true
	}
	got := jsonType(at.inst)
	if slices.Contains(ts, got) || got == "integer" && slices.Contains(ts, "number") {
		return true
	}
	l.fail(at.path, "want %s, got %s", strings.Join(ts, " or "), got)
	return false
}

func (l *locator) enum(kv any, at place) {
	if vals, ok := kv.([]any); ok && !containsJSON(vals, at.inst) {
		l.fail(at.path, "want one of %s, got %s", preview(vals), preview(at.inst))
	}
}

func (l *locator) constant(kv any, at place) {
	if !containsJSON([]any{kv}, at.inst) {
		l.fail(at.path, "want %s, got %s", preview(kv), preview(at.inst))
	}
}

func (l *locator) minimum(kv any, at place) {
	if f, m, ok := numbers(at.inst, kv); ok && f < m {
		l.fail(at.path, "%v is less than the minimum %v", at.inst, m)
	}
}

func (l *locator) maximum(kv any, at place) {
	if f, m, ok := numbers(at.inst, kv); ok && f > m {
		l.fail(at.path, "%v is more than the maximum %v", at.inst, m)
	}
}

func (l *locator) minLength(kv any, at place) {
	if s, ok := at.inst.(string); ok {
		l.atLeast(at, kv, utf8.RuneCountInString(s), "character", "characters")
	}
}

func (l *locator) maxLength(kv any, at place) {
	if s, ok := at.inst.(string); ok {
		l.atMost(at, kv, utf8.RuneCountInString(s), "character", "characters")
	}
}

func (l *locator) pattern(kv any, at place) {
	s, isString := at.inst.(string)
	p, ok := kv.(string)
	if !isString || !ok {
		return
	}
	if re := l.regexp(p); re != nil && !re.MatchString(s) {
		l.fail(at.path, "%s does not match the pattern %s", preview(s), preview(p))
	}
}

func (l *locator) minItems(kv any, at place) {
	if a, ok := at.inst.([]any); ok {
		l.atLeast(at, kv, len(a), "item", "items")
	}
}

func (l *locator) maxItems(kv any, at place) {
	if a, ok := at.inst.([]any); ok {
		l.atMost(at, kv, len(a), "item", "items")
	}
}

// atLeast says that n, a count of the value's units (one, many), is below
// the bound kv, if it is.
func (l *locator) atLeast(at place, kv any, n int, one, many string) {
	if m, ok := number(kv); ok && float64(n) < m {
		l.fail(at.path, "want at least %s, got %d", plural.Count(m, one, many), n)
	}
}

// atMost says that n, a count of the value's units (one, many), is above
// the bound kv, if it is.
func (l *locator) atMost(at place, kv any, n int, one, many string) {
	if m, ok := number(kv); ok && float64(n) > m {
		l.fail(at.path, "want at most %s, got %d", plural.Count(m, one, many), n)
	}
}

func (l *locator) required(kv any, at place) {
	in, isObject := at.inst.(*object)
	names, ok := kv.([]any)
	if !isObject || !ok {
		return
	}
	for _, r := range names {
		if name, ok := r.(string); ok && !in.has(name) {
			full := child(at.path, seg{name: name})
			l.add(&ValidationError{Pointer: pointer(full), Message: "missing required " + describe(full)})
		}
	}
}

// items finds the problems of each item of in under "items"; a draft-07
// tuple is left to jsonschema-go.
func (l *locator) items(o *object, in []any, at place) {
	it, ok := o.get("items")
	if _, tuple := it.([]any); !ok || tuple {
		return
	}
	for i, e := range in {
		l.find(it, e, child(at.path, seg{index: i}), at.depth+1)
	}
}

// members finds the problems of each member of in under its schema in
// "properties", else under "additionalProperties". A member that
// "patternProperties" may match is left to jsonschema-go.
func (l *locator) members(o, in *object, at place) {
	props, _ := get(o, "properties").(*object)
	ap, hasAP := o.get("additionalProperties")
	for _, m := range in.members {
		p := child(at.path, seg{name: m.key, index: -1})
		switch ps, declared := property(props, m.key); {
		case declared:
			l.find(ps, m.val, p, at.depth+1)
		case o.has("patternProperties"):
		case hasAP && ap == false:
			l.unexpected(p, props)
		case hasAP:
			l.find(ap, m.val, p, at.depth+1)
		}
	}
}

// property returns the schema props gives the property name; props may be
// nil.
func property(props *object, name string) (any, bool) {
	if props == nil {
		return nil, false
	}
	return props.get(name)
}

// unexpected says that the member at p is not allowed, and which are.
func (l *locator) unexpected(p []seg, props *object) {
	msg := "unexpected " + describe(p)
	if props != nil && len(props.members) > 0 {
		msg += " (allowed: " + strings.Join(props.keys(), ", ") + ")"
	}
	l.add(&ValidationError{Pointer: pointer(p), Message: msg})
}

func get(o *object, k string) any { v, _ := o.get(k); return v }

// regexp returns the pattern p compiled, or nil if it does not compile.
func (l *locator) regexp(p string) *regexp.Regexp {
	re, ok := l.res[p]
	if !ok {
		re, _ = regexp.Compile(p)
		if l.res == nil {
			l.res = map[string]*regexp.Regexp{}
		}
		l.res[p] = re
	}
	return re
}

// containsJSON reports whether v equals one of vals, as JSON values
// (numbers by value).
func containsJSON(vals []any, v any) bool {
	for _, e := range vals {
		if equalJSON(e, v) {
			return true
		}
	}
	return false
}

// equalJSON compares two JSON values as decodeOrdered returns them; it
// stops at the first difference, so its cost is bounded by a's size (the
// schema's value) whatever b's.
func equalJSON(a, b any) bool {
	switch a := a.(type) {
	case json.Number:
		x, okA := number(a)
		y, okB := number(b)
		return okA && okB && x == y
	case *object:
		bo, ok := b.(*object)
		if !ok || len(a.members) != len(bo.members) {
			return false
		}
		for _, m := range a.members {
			if v, ok := bo.get(m.key); !ok || !equalJSON(m.val, v) {
				return false
			}
		}
		return true
	case []any:
		bs, ok := b.([]any)
		if !ok || len(a) != len(bs) {
			return false
		}
		for i := range a {
			if !equalJSON(a[i], bs[i]) {
				return false
			}
		}
		return true
	}
	return a == b // string, bool, nil
}

// maxPreview bounds the bytes of a value quoted in a message.
const maxPreview = 200

// preview writes v as JSON for a message, or, past maxPreview bytes, the
// start of a string or the size of a container.
func preview(v any) string {
	if jsonSize(v, maxPreview) <= maxPreview {
		return string(encodeOrdered(v))
	}
	switch v := v.(type) {
	case string:
		// Its JSON, quotes included, may be past the bound while the
		// string is not.
		q := string(encodeOrdered(strings.ToValidUTF8(v[:min(len(v), maxPreview)], "")))
		return q[:len(q)-1] + `…" (` + strconv.Itoa(len(v)) + " bytes)"
	case []any:
		return "[" + plural.Count(len(v), "item", "items") + "]"
	case *object:
		return "{" + plural.Count(len(v.members), "property", "properties") + "}"
	}
	return string(encodeOrdered(v))
}
