package schema

import (
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
	d := &nullDropper{root: s}
	d.walk(s, a, 0)
	if !d.changed {
		return args, nil
	}
	return encodeOrdered(a), nil
}

type nullDropper struct {
	root    any
	changed bool
}

func (d *nullDropper) walk(s, a any, depth int) {
	o, ok := s.(*object)
	for ok && depth < 64 {
		ref, has := o.get("$ref")
		if !has {
			break
		}
		r, _ := ref.(string)
		ptr, local := localRef(r)
		if !local {
			return
		}
		t, found := resolvePointer(d.root, ptr)
		if !found {
			return
		}
		o, ok = t.(*object)
		depth++
	}
	if !ok || depth >= 64 {
		return
	}
	switch a := a.(type) {
	case *object:
		pv, _ := o.get("properties")
		props, _ := pv.(*object)
		if props == nil {
			return
		}
		req := map[string]bool{}
		if rv, ok := o.get("required"); ok {
			rs, _ := rv.([]any)
			for _, r := range rs {
				if n, ok := r.(string); ok {
					req[n] = true
				}
			}
		}
		for _, m := range slices.Clone(a.members) {
			ps, ok := props.get(m.key)
			if !ok {
				continue
			}
			if m.val == nil && !req[m.key] && !acceptsNull(ps) {
				a.del(m.key)
				d.changed = true
				continue
			}
			d.walk(ps, m.val, depth+1)
		}
	case []any:
		if it, ok := o.get("items"); ok {
			for _, e := range a {
				d.walk(it, e, depth+1)
			}
		}
	}
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
