package toolschema

import (
	"errors"
	"fmt"

	"github.com/mcpbridge/mcpbridge/internal/plural"
)

// A schema that passes the check of [UnboundedError] may still multiply its
// work on a value: definitions that each apply the next under two names,
// met again at every level of a deep value, or a hundred anyOf branches
// each failing on a megabyte string, whose messages jsonschema-go writes and
// joins. So before jsonschema-go validates a value, a meter walks the value
// alongside the schema as jsonschema-go will (every branch taken, which can
// only count more) and refuses the validation when it would pass a bound.
// The bounds grow with the value, so that a large value that a schema
// simply describes is validated, and a small one can never cost much.

// The bounds of one validation.
const (
	// maxNesting bounds the nesting of subschemas applied, in place or to
	// parts, so that jsonschema-go's stack stays small.
	maxNesting = 1 << 12
	// Visits of a subschema to a value: a base and so many per value.
	baseVisits, visitsPerValue = 1 << 20, 32
	// Bytes of error messages built, copied (jsonschema-go wraps a message
	// once per enclosing subschema) and dropped: a base and so many per
	// byte of the value.
	baseBytes, bytesPerByte = 1 << 26, 64
)

// ErrTooComplex says that validating a value against a schema would take
// more work than mcpbridge allows (see [Validator.Validate]).
var ErrTooComplex = errors.New("validation would take too much work")

// jsonObject and jsonArray are the containers of a value given to
// jsonschema-go. Its messages print the value they refuse; these print
// bounded summaries, so that a message costs the value's own bytes (a
// string's, the names of an object's properties), never a whole subtree.
type (
	jsonObject map[string]any
	jsonArray  []any
)

// Format prints the object as {N properties}.
func (o jsonObject) Format(f fmt.State, _ rune) {
	fmt.Fprintf(f, "{%s}", plural.Count(len(o), "property", "properties"))
}

// Format prints the array as [N items].
func (a jsonArray) Format(f fmt.State, _ rune) {
	fmt.Fprintf(f, "[%s]", plural.Count(len(a), "item", "items"))
}

// measure gives the size of a value, in values and bytes, for the bounds.
type measure struct{ values, bytes int }

// A meter counts the work of one validation; see the bounds above.
type meter struct {
	g                 *graph
	visits, maxVisits int
	dropped, maxBytes int // bytes of messages dropped by anyOf, oneOf, not, if, contains
	depth             int
	over              error
}

func newMeter(g *graph, size measure) *meter {
	return &meter{
		g:         g,
		maxVisits: baseVisits + visitsPerValue*size.values,
		maxBytes:  baseBytes + bytesPerByte*size.bytes,
	}
}

// check meters a validation of inst against the root, and returns nil or an
// error wrapping [ErrTooComplex].
func (w *meter) check(inst any) error {
	failing, _ := w.visit(w.g.root, inst)
	if w.over == nil && w.dropped+failing > w.maxBytes {
		w.over = fmt.Errorf("%w: its messages could reach %d bytes, over the limit of %d for a value this large", ErrTooComplex, w.dropped+failing, w.maxBytes)
	}
	return w.over
}

// visit meters the validation of inst against the schema s. It returns the
// bytes of messages written and copied should it fail (f), and the size of
// its message (m).
func (w *meter) visit(s, inst any) (f, m int) {
	if w.over != nil {
		return 0, 0
	}
	if w.depth+1 > maxNesting {
		w.over = fmt.Errorf("%w: subschemas nest more than %d deep on this value", ErrTooComplex, maxNesting)
		return 0, 0
	}
	w.depth++
	defer func() { w.depth-- }()
	o, ok := s.(*object)
	if !ok { // true or false; false is {"not": {}}
		w.visits += 2
		m = 64 + valueBytes(inst)
		return m, m
	}
	n := w.g.node(o)
	w.visits += n.weight
	if n.dynamic {
		w.visits += w.depth // jsonschema-go searches its stack for the anchor
	}
	switch v := inst.(type) {
	case string:
		w.visits += len(v) * n.scan / 256
	case jsonArray:
		if n.unique {
			w.visits += cost(v, w.maxVisits-w.visits+1)
		}
	}
	if w.visits > w.maxVisits {
		w.over = fmt.Errorf("%w: over %d visits of a subschema to a value, the limit for a value this large", ErrTooComplex, w.maxVisits)
		return 0, 0
	}
	var c messages
	for _, t := range n.every {
		c.chain(w.visit(t, inst))
	}
	for _, t := range n.joined {
		f, m := w.visit(t, inst)
		w.drop(f)
		c.joined = capped(c.joined + m)
	}
	for _, t := range n.dropped {
		f, _ := w.visit(t, inst)
		w.drop(f)
	}
	switch v := inst.(type) {
	case jsonObject:
		w.members(n, v, &c)
	case jsonArray:
		w.items(n, v, &c)
	}
	m = capped(n.msg + valueBytes(inst) + max(c.m, c.joined))
	return capped(m + c.f), m
}

// messages sums up the messages of the subschemas a schema applies: the
// longest failing chain (its bytes written and copied f, its message m),
// and the messages joined by anyOf or oneOf.
type messages struct{ f, m, joined int }

// chain counts a subschema whose failure fails the schema with it.
func (c *messages) chain(f, m int) { c.f, c.m = max(c.f, f), max(c.m, m) }

// members meters the subschemas n applies to each member of v, an object.
func (w *meter) members(n *node, v jsonObject, c *messages) {
	w.visits += len(v) // each property is iterated, its annotation merged
	for k, e := range v {
		w.visits += len(k) * n.keyScan / 256
		if p, ok := n.props[k]; ok {
			c.chain(w.visit(p, e))
		}
		for _, p := range n.patterns {
			c.chain(w.visit(p, e))
		}
		for _, kw := range [...]string{"additionalProperties", "unevaluatedProperties"} {
			if p, ok := n.single[kw]; ok {
				c.chain(w.visit(p, e))
			}
		}
		if p, ok := n.single["propertyNames"]; ok {
			c.chain(w.visit(p, k))
		}
	}
}

// items meters the subschemas n applies to each item of v, an array.
func (w *meter) items(n *node, v jsonArray, c *messages) {
	w.visits += len(v)
	for i, e := range v {
		for _, t := range n.tuples {
			if i < len(t) {
				c.chain(w.visit(t[i], e))
			}
		}
		for _, kw := range [...]string{"items", "additionalItems", "unevaluatedItems"} {
			if p, ok := n.single[kw]; ok {
				c.chain(w.visit(p, e))
			}
		}
		if p, ok := n.single["contains"]; ok {
			f, _ := w.visit(p, e)
			w.drop(f)
		}
	}
}

// drop counts the bytes of a message that is made and dropped.
func (w *meter) drop(f int) {
	if w.dropped = capped(w.dropped + f); w.dropped > w.maxBytes && w.over == nil {
		w.over = fmt.Errorf("%w: it could write over %d bytes of messages, the limit for a value this large", ErrTooComplex, w.maxBytes)
	}
}

// capped keeps a count of bytes from overflowing; any count past the limits
// is refused anyway.
func capped(n int) int { return min(n, 1<<50) }

// cost returns the work, in visits, of hashing v (a visit per value, one
// per 256 bytes of string), or a number over limit as soon as it passes it.
func cost(v any, limit int) int {
	n := 1
	switch v := v.(type) {
	case string:
		n += len(v) / 256
	case jsonObject:
		for k, e := range v {
			if n > limit {
				break
			}
			n += len(k)/256 + cost(e, limit-n)
		}
	case jsonArray:
		for _, e := range v {
			if n > limit {
				break
			}
			n += cost(e, limit-n)
		}
	}
	return n
}

// valueBytes bounds what a message says of inst alone: a string whole, an
// object's property names (an additionalProperties refusal lists them), a
// container's summary, a number.
func valueBytes(inst any) int {
	switch v := inst.(type) {
	case string:
		return len(v)
	case jsonObject:
		n := 32
		for k := range v {
			n += len(k) + 4
		}
		return n
	}
	return 32
}
