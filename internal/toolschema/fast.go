package toolschema

import (
	"encoding/json"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// Most tool schemas are an object of named properties, each a string, a
// number, an enumeration of strings or a list of those: keywords whose
// verdict needs no reflection, no annotations and no error text. For such a
// schema, [Compile] also builds a plain check, which accepts a value only
// where jsonschema-go would; what it does not accept goes to jsonschema-go,
// whose verdict and messages stand. On a call's arguments jsonschema-go
// costs some thirty allocations and the plain check none.
//
// The plain check reads the keywords as jsonschema-go decoded them, and
// takes a schema only if every keyword that bears on validation is one it
// knows (FuzzValidate holds it to jsonschema-go's verdict): a schema with a
// reference, a branch, a condition, a pattern of properties, a tuple, const
// or an enumeration of anything but strings is left to jsonschema-go. It
// applies each subschema to one part of the value once, so no value costs
// it more than its own size, and the bounds of work.go are never near.

// A plainNode is a schema the plain check takes.
type plainNode struct {
	types      []string // of "type"; nil: any
	enum       []string // of "enum"; nil: any
	min, max   *float64 // minimum, maximum
	xmin, xmax *float64 // exclusiveMinimum, exclusiveMaximum
	minLen     *int
	maxLen     *int
	pattern    *regexp.Regexp
	items      *plainNode
	minItems   *int
	maxItems   *int
	props      map[string]*plainNode
	required   map[string]bool // the names, each once
	additional *plainNode      // nil: any property may be added
	closed     bool            // additionalProperties: false
	minProps   *int
	maxProps   *int
}

// plainKeywords are the fields of jsonschema-go's Schema the plain check
// reads, or that do not bear on validation (annotations, $defs that
// nothing refers to, unknown keywords, which jsonschema-go ignores).
var plainKeywords = []string{
	"ID", "Schema", "Comment", "Defs", "Definitions", "Anchor", "DynamicAnchor",
	"Title", "Description", "Default", "Deprecated", "ReadOnly", "WriteOnly", "Examples",
	"Type", "Types", "Enum", "Minimum", "Maximum", "ExclusiveMinimum", "ExclusiveMaximum",
	"MinLength", "MaxLength", "Pattern", "Items", "MinItems", "MaxItems",
	"MinProperties", "MaxProperties", "Required", "Properties", "AdditionalProperties",
	"Format", "Extra", "PropertyOrder",
}

// jsonTypes are the names "type" may give.
var jsonTypes = []string{"null", "boolean", "object", "array", "number", "integer", "string"}

// plainSchema returns the plain check of the resolved schema root, or nil
// if it uses a keyword the check does not take.
func plainSchema(root *jsonschema.Schema) *plainNode {
	if s := root.Schema; s != "" && !slices.Contains(supportedDrafts, s) {
		return nil // jsonschema-go refuses to validate
	}
	n, _ := newPlainNode(root, 0)
	return n
}

// newPlainNode builds the plain check of s, at nesting depth.
func newPlainNode(s *jsonschema.Schema, depth int) (*plainNode, bool) {
	if s == nil || depth > maxArgDepth || !onlyPlainKeywords(s) {
		return nil, false
	}
	n := &plainNode{
		min: s.Minimum, max: s.Maximum, xmin: s.ExclusiveMinimum, xmax: s.ExclusiveMaximum,
		minLen: s.MinLength, maxLen: s.MaxLength, minItems: s.MinItems, maxItems: s.MaxItems,
		minProps: s.MinProperties, maxProps: s.MaxProperties,
	}
	switch {
	case s.Type != "":
		n.types = []string{s.Type}
	case s.Types != nil:
		n.types = s.Types
	}
	for _, t := range n.types {
		if !slices.Contains(jsonTypes, t) {
			return nil, false
		}
	}
	if n.types != nil && len(n.types) == 0 {
		return nil, false // "type": [] takes nothing
	}
	if s.Enum != nil {
		n.enum = []string{}
		for _, e := range s.Enum {
			str, ok := e.(string)
			if !ok {
				return nil, false
			}
			n.enum = append(n.enum, str)
		}
	}
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern) // as jsonschema-go compiles it
		if err != nil {
			return nil, false
		}
		n.pattern = re
	}
	var ok bool
	if s.Items != nil {
		if n.items, ok = newPlainNode(s.Items, depth+1); !ok {
			return nil, false
		}
	}
	if s.Properties != nil {
		n.props = make(map[string]*plainNode, len(s.Properties))
		for name, ps := range s.Properties {
			if n.props[name], ok = newPlainNode(ps, depth+1); !ok {
				return nil, false
			}
		}
	}
	if s.Required != nil {
		n.required = make(map[string]bool, len(s.Required))
		for _, name := range s.Required {
			n.required[name] = true
		}
	}
	if a := s.AdditionalProperties; a != nil {
		// false reads as {"not": {}}, which jsonschema-go tells apart by
		// its "not" alone.
		if a.Not != nil && reflect.ValueOf(*a.Not).IsZero() {
			n.closed = true
		} else if n.additional, ok = newPlainNode(a, depth+1); !ok {
			return nil, false
		}
	}
	return n, true
}

// onlyPlainKeywords reports whether every field of s that is set is one
// of plainKeywords.
func onlyPlainKeywords(s *jsonschema.Schema) bool {
	v := reflect.ValueOf(s).Elem()
	for i := range v.NumField() {
		if !v.Field(i).IsZero() && !slices.Contains(plainKeywords, v.Type().Field(i).Name) {
			return false
		}
	}
	return true
}

// accepts reports whether jsonschema-go surely accepts a, a value as
// decodeOrdered returns it. false says only that jsonschema-go must judge.
func (n *plainNode) accepts(a any) bool {
	typ, num, ok := plainType(a)
	if !ok {
		return false
	}
	if n.types != nil && !slices.Contains(n.types, typ) && !(typ == "integer" && slices.Contains(n.types, "number")) {
		return false
	}
	switch a := a.(type) {
	case string:
		return n.acceptsString(a)
	case json.Number:
		return n.enum == nil &&
			(n.min == nil || num >= *n.min) && (n.max == nil || num <= *n.max) &&
			(n.xmin == nil || num > *n.xmin) && (n.xmax == nil || num < *n.xmax)
	case []any:
		if n.enum != nil || n.minItems != nil && len(a) < *n.minItems || n.maxItems != nil && len(a) > *n.maxItems {
			return false
		}
		for _, e := range a {
			if n.items != nil && !n.items.accepts(e) || n.items == nil && !inRange(e) {
				return false
			}
		}
		return true
	case *object:
		return n.enum == nil && n.acceptsObject(a)
	}
	return n.enum == nil // null, a boolean
}

func (n *plainNode) acceptsString(s string) bool {
	if n.enum != nil && !slices.Contains(n.enum, s) {
		return false
	}
	if n.minLen != nil || n.maxLen != nil {
		count := utf8.RuneCountInString(s)
		if n.minLen != nil && count < *n.minLen || n.maxLen != nil && count > *n.maxLen {
			return false
		}
	}
	return n.pattern == nil || n.pattern.MatchString(s)
}

func (n *plainNode) acceptsObject(o *object) bool {
	if n.minProps != nil && len(o.members) < *n.minProps || n.maxProps != nil && len(o.members) > *n.maxProps {
		return false
	}
	required := 0
	for _, m := range o.members { // keys are distinct: set replaces
		if n.required[m.key] {
			required++
		}
		ps, declared := n.props[m.key]
		switch {
		case declared:
			if !ps.accepts(m.val) {
				return false
			}
		case n.closed:
			return false
		case n.additional != nil:
			if !n.additional.accepts(m.val) {
				return false
			}
		default:
			if !inRange(m.val) {
				return false
			}
		}
	}
	return required == len(n.required)
}

// inRange reports whether every number in a, a part of a value no
// keyword applies to, is within float64's range, as plain requires of the
// whole value.
func inRange(a any) bool {
	switch a := a.(type) {
	case json.Number:
		_, _, ok := plainType(a)
		return ok
	case []any:
		for _, e := range a {
			if !inRange(e) {
				return false
			}
		}
	case *object:
		for _, m := range a.members {
			if !inRange(m.val) {
				return false
			}
		}
	}
	return true
}

// plainType returns the JSON type of a, as jsonschema-go names it, and for
// a number its value; ok is false for a number out of range, which plain
// refuses.
func plainType(a any) (typ string, num float64, ok bool) {
	switch a := a.(type) {
	case nil:
		return "null", 0, true
	case bool:
		return "boolean", 0, true
	case string:
		return "string", 0, true
	case []any:
		return "array", 0, true
	case *object:
		return "object", 0, true
	case json.Number:
		f, err := strconv.ParseFloat(string(a), 64)
		if err != nil {
			return "", 0, false
		}
		if _, frac := math.Modf(f); frac == 0 {
			return "integer", f, true
		}
		return "number", f, true
	}
	return "", 0, false
}
