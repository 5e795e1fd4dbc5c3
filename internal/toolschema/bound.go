package toolschema

import (
	"fmt"
	"net/url"
	"strings"
)

// A schema a server sends is hostile input: a reference can lead back to the
// schema it is in, and a few bytes of definitions that each apply the next
// twice make 2^40 subschemas. jsonschema-go follows references as it
// validates, with no bound, so such a schema overflows the stack (fatal, not
// a panic) or never finishes. Every schema is therefore checked once, before
// it is lowered or compiled (see [UnboundedError]); what the check cannot see
// (a schema that multiplies its work on a large value) is bounded per
// validation (see validation work in work.go).

// The bounds of the check.
const (
	// maxApplied bounds the subschemas applied to one value, references and
	// allOf, anyOf, oneOf... counted each time they are reached.
	maxApplied = 1 << 16
	// maxAnalysis bounds the work of the check itself (references resolved
	// times the places they may resolve in).
	maxAnalysis = 1 << 20
)

// An UnboundedError says that no validation against a schema could finish
// within bounds, whatever the value: a cycle of references that applies the
// schema to the same value again and again (a validator recurses until its
// stack is gone), or references and allOf/anyOf/oneOf branches that together
// apply more subschemas to one value than mcpbridge allows. Lowering and
// compiling refuse such a schema with this error; the tool should be left out.
type UnboundedError struct {
	// Pointer is a JSON pointer into the schema where the problem is found:
	// the reference that closes a cycle, or the subschema that applies too
	// many.
	Pointer string
	// Keyword is the keyword concerned ("$ref", "$dynamicRef"), if any.
	Keyword string
	// Message says what is wrong.
	Message string
}

// Error names the place and the reason.
func (e *UnboundedError) Error() string {
	return fmt.Sprintf("schema: at %s: %s", showPointer(e.Pointer), e.Message)
}

func showPointer(p string) string {
	if p == "" {
		return "(root)"
	}
	return p
}

// A use says how jsonschema-go applies the subschemas of a keyword.
type use uint8

const (
	// unapplied subschemas are reached only by reference ($defs).
	unapplied use = iota
	// every applies them to the value itself; a failure fails the value.
	every
	// joined applies them to the value itself, and the value fails when all
	// of them do, with all their messages (anyOf).
	joined
	// dropped applies them to the value itself and drops their messages
	// (oneOf, not, if).
	dropped
	// part applies them to parts of the value: properties, items.
	part
)

// A keyword is one whose value holds subschemas.
type keyword struct {
	use use
	// named says the value is an object of subschemas by name; otherwise it
	// is a subschema, or an array of them.
	named bool
}

// keywords lists every keyword whose value holds subschemas, as
// jsonschema-go reads a schema (one per field of its Schema of a schema
// type; TestKeywordsCoverJSONSchemaGo fails when it gains one).
var keywords = map[string]keyword{
	"$defs":       {unapplied, true},
	"definitions": {unapplied, true},
	// contentSchema is read but never applied.
	"contentSchema": {unapplied, false},

	"allOf": {every, false},
	"then":  {every, false},
	"else":  {every, false},
	// dependentSchemas and the schemas of draft-07 dependencies apply to
	// the object itself when it has the property named.
	"dependentSchemas": {every, true},
	"dependencies":     {every, true},
	"anyOf":            {joined, false},
	"oneOf":            {dropped, false},
	"not":              {dropped, false},
	"if":               {dropped, false},

	"properties":            {part, true},
	"patternProperties":     {part, true},
	"additionalProperties":  {part, false},
	"propertyNames":         {part, false},
	"unevaluatedProperties": {part, false},
	"items":                 {part, false},
	"prefixItems":           {part, false},
	"additionalItems":       {part, false},
	"contains":              {part, false},
	"unevaluatedItems":      {part, false},
}

// subschemas calls f with every subschema in v, the value of a keyword k,
// and its pointer below ptr.
func subschemas(k keyword, v any, ptr string, f func(sub any, ptr string)) {
	switch v := v.(type) {
	case *object:
		if !k.named {
			f(v, ptr)
			return
		}
		for _, m := range v.members {
			switch m.val.(type) {
			case *object, bool: // a draft-07 dependency may be a list of names
				f(m.val, pointerJoin(ptr, m.key))
			}
		}
	case bool:
		if !k.named {
			f(v, ptr)
		}
	case []any:
		if k.named {
			return
		}
		for i, s := range v {
			f(s, pointerJoin(ptr, itoa(i)))
		}
	}
}

// A graph is a schema as validation follows it: each subschema (an *object;
// a boolean schema is a leaf) with the subschemas it applies, its references
// resolved to every subschema jsonschema-go might resolve them to.
type graph struct {
	root any
	// ptrs holds every subschema in a schema position, by its pointer.
	ptrs map[*object]string
	// resources are the subschemas a URI may name: the root, and those
	// with an $id.
	resources []*object
	// anchors are the subschemas declaring an anchor ($anchor,
	// $dynamicAnchor, draft-07 "$id": "#name"), by name.
	anchors map[string][]any
	nodes   map[*object]*node
	work    int // resolution steps so far, against maxAnalysis
}

// A node is one subschema's part of the graph.
type node struct {
	ptr string
	// Applied to the value itself: every (references included), joined
	// and dropped, as for [use]; in lists them all with the keyword, for
	// the cycle check.
	every, joined, dropped []any
	in                     []edge

	// Applied to parts of the value: properties by name, patternProperties,
	// prefixItems and draft-07 tuples of items, and by keyword those whose
	// value is one subschema (additionalProperties, items, contains...).
	props    map[string]any
	patterns []any
	tuples   [][]any
	single   map[string]any

	// weight is the cost of one visit, in visits (enum values and required
	// names are compared one by one); msg bounds the bytes of a message
	// about it, the value aside.
	weight, msg int
	// What costs with the size of the value: scanning a string (its length,
	// its pattern), scanning property names (patternProperties), hashing
	// every item (uniqueItems), searching the stack ($dynamicRef). scan and
	// keyScan are per 256 bytes scanned.
	scan, keyScan   int
	unique, dynamic bool
}

// An edge is a subschema applied in place, with the keyword that applies it.
type edge struct {
	kw string
	to any
}

// newGraph indexes root. It does not check it: see [graph.check].
func newGraph(root any) *graph {
	g := &graph{
		root:    root,
		ptrs:    map[*object]string{},
		anchors: map[string][]any{},
		nodes:   map[*object]*node{},
	}
	if o, ok := root.(*object); ok {
		g.resources = append(g.resources, o)
	}
	g.index(root, "")
	return g
}

// index records the subschema v found at ptr and every one below it.
func (g *graph) index(v any, ptr string) {
	o, ok := v.(*object)
	if !ok {
		return
	}
	g.ptrs[o] = ptr
	var names []string
	if id, ok := get(o, "$id").(string); ok && id != "" {
		if name, anchor := strings.CutPrefix(id, "#"); anchor {
			names = append(names, name)
		} else if ptr != "" {
			g.resources = append(g.resources, o)
		}
	}
	for _, kw := range []string{"$anchor", "$dynamicAnchor"} {
		if name, ok := get(o, kw).(string); ok {
			names = append(names, name)
		}
	}
	for _, name := range names {
		if as := g.anchors[name]; len(as) == 0 || as[len(as)-1] != o {
			g.anchors[name] = append(as, o)
		}
	}
	for _, m := range o.members {
		if k, ok := keywords[m.key]; ok {
			subschemas(k, m.val, pointerJoin(ptr, m.key), g.index)
		}
	}
}

// targets returns every subschema the reference ref ($ref or $dynamicRef)
// may resolve to. With no loader, jsonschema-go resolves it within the
// schema: a fragment that is a JSON pointer within the resource its URI names
// (one of g.resources: which one needs the URI resolution of every $id, so
// all are taken), or an anchor's name (any subschema declaring it, in any
// resource: a $dynamicRef may reach any $dynamicAnchor of the name). Taking
// more subschemas than it might keeps the check sound.
func (g *graph) targets(ref string) []any {
	if ref == "" {
		return nil // jsonschema-go reads "$ref": "" as no reference
	}
	u, err := url.Parse(ref)
	if err != nil {
		return nil // jsonschema-go refuses the schema
	}
	frag := u.Fragment // percent-decoded, as jsonschema-go reads it
	if frag != "" && frag[0] != '/' {
		ts := g.anchors[frag]
		g.work += len(ts)
		return ts
	}
	toks, ok := pointerTokens(frag)
	if !ok {
		return nil
	}
	var ts []any
	seen := map[any]bool{} // the root may have an $id too
	for _, r := range g.resources {
		if g.work += 1 + len(toks); g.work > maxAnalysis {
			break // the check fails: too complex
		}
		t, ok := resolveTokens(r, toks)
		if !ok {
			continue
		}
		// Only a schema's place is a target (jsonschema-go refuses any
		// other), and only then is t a key: an array is not comparable.
		if o, isObj := t.(*object); isObj {
			if _, schema := g.ptrs[o]; !schema {
				continue
			}
		} else if _, isBool := t.(bool); !isBool {
			continue
		}
		if seen[t] {
			continue
		}
		seen[t] = true
		ts = append(ts, t)
	}
	return ts
}

// node returns the part of the graph of o, made on first use.
func (g *graph) node(o *object) *node {
	if n := g.nodes[o]; n != nil {
		return n
	}
	n := &node{ptr: g.ptrs[o], weight: 1}
	n.msg = 64 + len(n.ptr)
	for _, m := range o.members {
		switch m.key {
		case "$ref", "$dynamicRef":
			n.dynamic = n.dynamic || m.key == "$dynamicRef"
			ref, _ := m.val.(string)
			for _, t := range g.targets(ref) {
				n.every = append(n.every, t)
				n.in = append(n.in, edge{m.key, t})
			}
		case "enum", "required", "const":
			vals, _ := m.val.([]any)
			size := len(encodeOrdered(m.val))
			n.weight += len(vals) + size/64 // compared value by value
			n.msg += size
		case "minLength", "maxLength":
			n.scan = max(n.scan, 1) // counting runes
		case "pattern":
			p, _ := m.val.(string)
			n.scan += 1 + len(p)/8 // regexp's matching is linear, times the pattern
			n.msg += len(p)
		case "patternProperties":
			if ps, ok := m.val.(*object); ok {
				for _, pm := range ps.members {
					n.keyScan += 1 + len(pm.key)/8
				}
			}
		case "uniqueItems":
			n.unique = m.val == true
		case "$id", "$anchor", "$dynamicAnchor":
			// jsonschema-go names a subschema by these in messages.
			n.msg += len(encodeOrdered(m.val))
		}
		k, ok := keywords[m.key]
		if !ok {
			continue
		}
		switch k.use {
		case every, joined, dropped:
			subschemas(k, m.val, "", func(sub any, _ string) {
				n.in = append(n.in, edge{m.key, sub})
				switch k.use {
				case every:
					n.every = append(n.every, sub)
				case joined:
					n.joined = append(n.joined, sub)
				default:
					n.dropped = append(n.dropped, sub)
				}
			})
		case part:
			n.part(m.key, m.val)
		}
	}
	g.nodes[o] = n
	return n
}

// part records the subschemas of kw, a keyword applied to parts of a value.
func (n *node) part(kw string, v any) {
	_, list := v.([]any)
	switch {
	case kw == "properties":
		n.props = map[string]any{}
		if o, ok := v.(*object); ok {
			for _, m := range o.members {
				n.props[m.key] = m.val
			}
		}
	case kw == "patternProperties":
		subschemas(keywords[kw], v, "", func(sub any, _ string) { n.patterns = append(n.patterns, sub) })
	case list: // prefixItems, or items as a draft-07 tuple
		n.tuples = append(n.tuples, v.([]any))
	default:
		if n.single == nil {
			n.single = map[string]any{}
		}
		n.single[kw] = v
	}
}

// check returns an *UnboundedError if some subschema reachable from the
// root applies itself to the same value without end, or applies more than
// maxApplied subschemas to one value.
func (g *graph) check() error {
	reach := g.reachable()
	if reach == nil {
		return g.tooComplex()
	}
	const (
		white = iota
		grey  // on the path being explored
		black // done; its count of applied subschemas is known
	)
	color := make(map[*object]uint8, len(reach))
	applied := make(map[*object]int, len(reach))
	var path []frame
	for _, start := range reach {
		if color[start] != white {
			continue
		}
		color[start] = grey
		path = append(path[:0], frame{o: start})
		for len(path) > 0 {
			f := &path[len(path)-1]
			n := g.node(f.o)
			if g.work > maxAnalysis {
				return g.tooComplex()
			}
			if f.next < len(n.in) {
				e := n.in[f.next]
				f.next++
				to, ok := e.to.(*object)
				if !ok {
					f.count += 2 // false is {"not": {}}
					continue
				}
				switch color[to] {
				case grey:
					return g.cycle(path, e, to)
				case black:
					f.count = min(f.count+applied[to], maxApplied+1)
				default:
					color[to] = grey
					path = append(path, frame{o: to})
				}
				continue
			}
			total := min(1+f.count, maxApplied+1)
			if total > maxApplied {
				return &UnboundedError{Pointer: n.ptr, Message: fmt.Sprintf(
					"applies more than %d subschemas to one value (references and allOf, anyOf, oneOf multiply): validation would not finish in bounded time", maxApplied)}
			}
			applied[f.o], color[f.o] = total, black
			path = path[:len(path)-1]
			if len(path) > 0 {
				p := &path[len(path)-1]
				p.count = min(p.count+total, maxApplied+1)
			}
		}
	}
	return nil
}

// A frame is one subschema on the path the check explores.
type frame struct {
	o     *object
	next  int // the next edge of o to follow
	count int // subschemas applied by the edges followed so far
}

// reachable lists the subschemas validation can reach from the root, or nil
// when finding them takes more than maxAnalysis.
func (g *graph) reachable() []*object {
	r, ok := g.root.(*object)
	if !ok {
		return []*object{}
	}
	seen := map[*object]bool{r: true}
	queue := []*object{r}
	add := func(v any) {
		if o, ok := v.(*object); ok && !seen[o] {
			seen[o] = true
			queue = append(queue, o)
		}
	}
	for i := 0; i < len(queue); i++ {
		if g.work += 1; g.work > maxAnalysis {
			return nil
		}
		n := g.node(queue[i])
		for _, e := range n.in {
			add(e.to)
		}
		for _, v := range n.props {
			add(v)
		}
		for _, v := range n.patterns {
			add(v)
		}
		for _, t := range n.tuples {
			for _, v := range t {
				add(v)
			}
		}
		for _, v := range n.single {
			add(v)
		}
	}
	return queue
}

// cycle describes the cycle closed by e, an edge from the last subschema of
// path back to to, which is on it.
func (g *graph) cycle(path []frame, e edge, to *object) error {
	var names []string
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].o == to {
			for _, f := range path[i:] {
				names = append(names, showPointer(g.ptrs[f.o]))
			}
			break
		}
	}
	names = append(names, showPointer(g.ptrs[to]))
	last := path[len(path)-1].o
	what := e.kw
	if ref, ok := get(last, e.kw).(string); ok {
		what = fmt.Sprintf("%s %q", e.kw, ref)
	}
	return &UnboundedError{
		Pointer: pointerJoin(g.ptrs[last], e.kw),
		Keyword: e.kw,
		Message: fmt.Sprintf("%s closes the cycle %s, which never descends into the value: no validation could finish",
			what, strings.Join(names, " → ")),
	}
}

func (g *graph) tooComplex() error {
	return &UnboundedError{Message: fmt.Sprintf("too many references to check (over %d resolution steps)", maxAnalysis)}
}
