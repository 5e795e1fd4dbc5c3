package toolschema

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// FuzzNamer checks, for every vendor, that each assigned name is valid,
// that Lookup returns the exact pair, and that no two pairs share a name.
func FuzzNamer(f *testing.F) {
	f.Add("kb", "search", "kb_search", "kb", "search.v2", "")
	f.Add("", "", "", "x", "", "")
	f.Add("a", "x.y", "x.y", "b", "x_y", "x_y")
	f.Add(strings.Repeat("s", 70), "é/ü", "", "9", strings.Repeat("t", 200), "-")
	f.Fuzz(func(t *testing.T, s1, t1, w1, s2, t2, w2 string) {
		inputs := [][3]string{{s1, t1, w1}, {s2, t2, w2}, {s1, t2, w2}, {s2, t1, w1}, {s1, t1 + t2, w1 + w2}}
		for _, v := range []Vendor{OpenAI, Anthropic, Gemini} {
			n := NewNamer(v)
			names := map[string][2]string{}
			for _, in := range inputs {
				name, err := n.Add(in[0], in[1], in[2])
				if err != nil {
					t.Fatalf("%s Add(%q, %q, %q): %v", v, in[0], in[1], in[2], err)
				}
				if err := CheckName(v, name); err != nil {
					t.Fatalf("%s Add(%q, %q, %q) = %q: %v", v, in[0], in[1], in[2], name, err)
				}
				p := [2]string{in[0], in[1]}
				if q, ok := names[name]; ok && q != p {
					t.Fatalf("%s: %q given to both %q and %q", v, name, q, p)
				}
				names[name] = p
				s, tl, ok := n.Lookup(name)
				if !ok || s != in[0] || tl != in[1] {
					t.Fatalf("%s Lookup(%q) = %q, %q, %v; want %q, %q", v, name, s, tl, ok, in[0], in[1])
				}
			}
		}
	})
}

// seedSchemas are the fuzz targets' starting schemas: ordinary ones, and
// every shape of recursion ($ref, $defs cycles, allOf/anyOf, $dynamicRef,
// anchors, $id) that once overflowed the stack.
func seedSchemas() []string {
	seeds := []string{
		`{}`, `true`, `null`, `[]`, `"x"`,
		`{"type":"object","properties":{"a":{"type":["string","null"]}},"required":["a"]}`,
		`{"type":"object","properties":{"t":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"object","properties":{"k":{"$ref":"#/$defs/n"}}}}}`,
		`{"allOf":[{"type":"object","properties":{"a":{}}},{"properties":{"a":{}}}]}`,
		`{"type":["array","object","null"],"items":[{"const":1}],"properties":{"x":false}}`,
		`{"anyOf":[{"type":"null"}],"oneOf":[],"enum":[null,1,"a"],"format":"uri","$ref":"#/anyOf/0"}`,
		`{"$id":"https://example.com/t","$dynamicAnchor":"node","type":"object","properties":{"kids":{"type":"array","items":{"$dynamicRef":"#node"}}}}`,
		`{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"},{"$ref":"#/$defs/b"}]},"b":{"anyOf":[{"$ref":"#/$defs/c"},{"$ref":"#/$defs/c"}]},"c":{"properties":{"x":{"$ref":"#/$defs/a"}}}},"$ref":"#/$defs/a"}`,
	}
	for _, u := range unboundedSchemas {
		seeds = append(seeds, u.schema)
	}
	return seeds
}

// FuzzLower checks that lowering never panics and, when it succeeds, gives
// valid JSON; and that a Validator compiled from the same bytes never panics.
// Each call returns: a schema that recursed without end would overflow the
// stack, which no test survives.
func FuzzLower(f *testing.F) {
	for _, s := range seedSchemas() {
		f.Add([]byte(s), []byte(`{"a":null}`))
	}
	f.Fuzz(func(t *testing.T, schema, args []byte) {
		for _, v := range []Vendor{OpenAI, Anthropic, Gemini} {
			low, err := Lower(v, schema)
			if err == nil && !json.Valid(low.Schema) {
				t.Fatalf("%s: invalid JSON %q from %q", v, low.Schema, schema)
			}
			if err == nil && v == Gemini {
				out, _ := decodeOrdered(low.Schema)
				if k := geminiRefused(out, true); k != "" {
					t.Fatalf("Gemini output %s keeps %s", low.Schema, k)
				}
			}
			_ = Lint(v, "x", schema)
		}
		if out, err := DropNullOptionals(schema, args); err == nil && json.Valid(args) {
			if !json.Valid(out) {
				t.Fatalf("DropNullOptionals gave invalid JSON %q", out)
			}
		}
		if out, err := DecodeStringified(schema, args); err == nil && json.Valid(args) {
			if !json.Valid(out) {
				t.Fatalf("DecodeStringified gave invalid JSON %q", out)
			}
		}
		if val, err := Compile(schema); err == nil {
			_ = val.Validate(args)
		}
	})
}

// FuzzValidate checks that validating any value against any schema that
// compiles returns, within the bounds of validation, and that Validate and
// ValidateValue agree on the verdict; Prepare, which repairs first, must
// return too. The plain check (fast.go) must accept nothing jsonschema-go
// refuses, and decodeOrdered must read both inputs as the token decoder
// does.
func FuzzValidate(f *testing.F) {
	for _, s := range seedSchemas() {
		for _, v := range []string{`{}`, `{"kids":[{"kids":[{}]}],"x":{"x":{"x":1}}}`, `[1,"a",null]`, `"x"`} {
			f.Add([]byte(s), []byte(v))
		}
	}
	for _, c := range plainCases {
		for _, v := range c.values {
			f.Add([]byte(c.schema), []byte(v))
		}
	}
	f.Fuzz(func(t *testing.T, schema, value []byte) {
		for _, in := range [][]byte{schema, value} {
			got, gotErr := decodeOrdered(in)
			want, wantErr := decodeTokens(in)
			if !reflect.DeepEqual(got, want) || (gotErr == nil) != (wantErr == nil) {
				t.Fatalf("decodeOrdered(%q) = %#v, %v; the token decoder: %#v, %v", in, got, gotErr, want, wantErr)
			}
		}
		val, err := Compile(schema)
		if err != nil || !json.Valid(value) {
			return
		}
		if a, err := decodeOrdered(value); err == nil && val.plain != nil && val.plain.accepts(a) {
			if err := val.judge(a); err != nil {
				t.Fatalf("the plain check accepts %s; jsonschema-go: %v", value, err)
			}
		}
		errArgs := val.Validate(value)
		errValue := val.ValidateValue(value)
		if (errArgs == nil) != (errValue == nil) {
			t.Fatalf("Validate: %v; ValidateValue: %v", errArgs, errValue)
		}
		_, _ = val.Prepare(value, true) // repairs first, so its verdict may differ
	})
}

// geminiRefused returns a keyword of a lowered schema Gemini would refuse;
// root says v is the parameters' schema itself.
func geminiRefused(v any, root bool) string {
	switch v := v.(type) {
	case *object:
		if ts := typeNames(v); !root && len(ts) == 1 && ts[0] == "object" {
			if ps, _ := v.get("properties"); ps == nil || len(ps.(*object).members) == 0 {
				return "an object without properties"
			}
		}
		for _, m := range v.members {
			if !geminiKept[m.key] {
				return m.key
			}
			if m.key == "type" {
				if _, ok := m.val.(string); !ok {
					return "type " + string(encodeOrdered(m.val))
				}
			}
			switch m.key {
			case "properties":
				if ps, ok := m.val.(*object); ok {
					for _, p := range ps.members {
						if k := geminiRefused(p.val, false); k != "" {
							return k
						}
					}
				}
			case "items":
				if k := geminiRefused(m.val, false); k != "" {
					return k
				}
			case "anyOf":
				for _, b := range m.val.([]any) {
					if k := geminiRefused(b, false); k != "" {
						return k
					}
				}
			}
		}
	}
	return ""
}
