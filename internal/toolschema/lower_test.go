package toolschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// lowerOpenAI lowers in for OpenAI, failing the test unless that works and
// the result's strict mode is strict.
func lowerOpenAI(t *testing.T, in string, strict bool) Lowered {
	t.Helper()
	low, err := Lower(OpenAI, json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	if low.Strict != strict {
		t.Fatalf("strict %v, want %v: %s %v", low.Strict, strict, low.Schema, low.Diagnostics)
	}
	return low
}

// compact normalizes a JSON literal written in a test, keeping key order.
func compact(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return b.String()
}

func hasDiag(ds []Diagnostic, ptr, kw string) bool {
	for _, d := range ds {
		if d.Pointer == ptr && d.Keyword == kw {
			return true
		}
	}
	return false
}

func TestLowerAnthropicUntouched(t *testing.T) {
	in := json.RawMessage("{ \"type\":\"object\",\n \"$defs\":{}, \"properties\":{\"a\":{\"$ref\":\"#/$defs/x\"}} }")
	low, err := Lower(Anthropic, in)
	if err != nil || !bytes.Equal(low.Schema, in) || len(low.Diagnostics) != 0 {
		t.Fatalf("Lower(Anthropic) = %s, %v, %v; want the input byte for byte", low.Schema, low.Diagnostics, err)
	}
	low, _ = Lower(Anthropic, nil)
	if string(low.Schema) != `{"type":"object","properties":{}}` {
		t.Errorf("empty schema became %s", low.Schema)
	}
	if _, err := Lower(Anthropic, json.RawMessage(`{`)); err == nil {
		t.Error("invalid JSON: no error")
	}
}

func TestLowerGemini(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		want  string
		diags [][2]string // pointer, keyword
	}{{
		name: "ref to $defs inlined, property order kept",
		in: `{"type":"object","properties":{"z":{"$ref":"#/$defs/pt","description":"where"},"a":{"type":"string"}},
			"$defs":{"pt":{"type":"object","properties":{"y":{"type":"number"},"x":{"type":"number"}},"required":["y","x"]}}}`,
		want: `{"type":"object","properties":{"z":{"type":"object","properties":{"y":{"type":"number"},"x":{"type":"number"}},"required":["y","x"],"description":"where"},"a":{"type":"string"}}}`,
	}, {
		name:  "draft-07 definitions",
		in:    `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"m":{"$ref":"#/definitions/mode"}},"definitions":{"mode":{"type":"string","enum":["a","b"]}},"additionalProperties":false}`,
		want:  `{"type":"object","properties":{"m":{"type":"string","enum":["a","b"]}}}`,
		diags: [][2]string{{"/additionalProperties", "additionalProperties"}},
	}, {
		name: "type array with null becomes nullable",
		in:   `{"type":"object","properties":{"n":{"type":["string","null"],"maxLength":5}}}`,
		want: `{"type":"object","properties":{"n":{"type":"string","maxLength":5,"nullable":true}}}`,
	}, {
		name:  "two types become anyOf, keywords split",
		in:    `{"type":"object","properties":{"v":{"type":["string","array"],"items":{"type":"integer"},"minLength":1}}}`,
		want:  `{"type":"object","properties":{"v":{"anyOf":[{"type":"string","minLength":1},{"type":"array","items":{"type":"integer"}}]}}}`,
		diags: [][2]string{{"/properties/v/type", "type"}},
	}, {
		name:  "const becomes enum; anyOf with null becomes nullable; oneOf becomes anyOf",
		in:    `{"type":"object","properties":{"k":{"type":"string","const":"x"},"o":{"anyOf":[{"type":"string"},{"type":"null"}]},"u":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`,
		want:  `{"type":"object","properties":{"k":{"type":"string","enum":["x"]},"o":{"type":"string","nullable":true},"u":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}`,
		diags: [][2]string{{"/properties/k/const", "const"}, {"/properties/u/oneOf", "oneOf"}},
	}, {
		name: "refused keywords dropped with pointers",
		in:   `{"type":"object","$id":"urn:x","properties":{"p":{"type":"object","patternProperties":{"^x":{}},"properties":{"q":{"type":"string","format":"uri","examples":["a"]}},"additionalProperties":{"type":"string"}},"e":{"type":"integer","exclusiveMinimum":0,"enum":[1,2]}},"if":{},"then":{}}`,
		want: `{"type":"object","properties":{"p":{"type":"object","properties":{"q":{"type":"string","description":"Format: uri."}}},"e":{"type":"integer","description":"One of: 1, 2."}}}`,
		diags: [][2]string{
			{"/properties/p/patternProperties", "patternProperties"},
			{"/properties/p/properties/q/format", "format"}, {"/properties/p/properties/q/examples", "examples"},
			{"/properties/p/additionalProperties", "additionalProperties"},
			{"/properties/e/exclusiveMinimum", "exclusiveMinimum"}, {"/properties/e/enum", "enum"},
			{"/if", "if"}, {"/then", "then"},
		},
	}, {
		name:  "an enum moved into the description keeps the description after it",
		in:    `{"type":"object","properties":{"e":{"type":"integer","enum":[1,2],"description":"Pick one"},"c":{"const":3,"description":"Three."}}}`,
		want:  `{"type":"object","properties":{"e":{"type":"integer","description":"Pick one. One of: 1, 2."},"c":{"description":"Three. One of: 3."}}}`,
		diags: [][2]string{{"/properties/e/enum", "enum"}, {"/properties/c/const", "const"}},
	}, {
		name: "allOf of objects merged",
		in:   `{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"type":"object","properties":{"b":{"type":"integer"}}}]}`,
		want: `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a"]}`,
	}, {
		name: "empty schema",
		in:   `{}`,
		want: `{"type":"object","properties":{}}`,
	}, {
		name: "free-form objects below the root become JSON strings",
		in: `{"type":"object","properties":{
			"meta":{"type":"object","description":"Any labels.","additionalProperties":{"type":"string"}},
			"none":{"type":"object","properties":{}},
			"maybe":{"type":["object","null"]},
			"rows":{"type":"array","items":{"type":"object"}},
			"kept":{"type":"object","properties":{"k":{"type":"string"}}}}}`,
		want: `{"type":"object","properties":{
			"meta":{"type":"string","description":"Any labels. A JSON object, written as a string."},
			"none":{"type":"string","description":"A JSON object, written as a string."},
			"maybe":{"type":"string","nullable":true,"description":"A JSON object, written as a string."},
			"rows":{"type":"array","items":{"type":"string","description":"A JSON object, written as a string."}},
			"kept":{"type":"object","properties":{"k":{"type":"string"}}}}}`,
		diags: [][2]string{
			{"/properties/meta", "properties"}, {"/properties/none", "properties"},
			{"/properties/maybe", "properties"}, {"/properties/rows/items", "properties"},
		},
	}, {
		// The pointer is where the original schema declares the free-form
		// object, not the path in the lowered one.
		name: "free-form objects through $ref and oneOf point into the original",
		in: `{"type":"object","properties":{
			"x":{"$ref":"#/$defs/X"},
			"y":{"$ref":"#/$defs/X","description":"again"},
			"u":{"oneOf":[{"type":"object"},{"type":"string"}]}},
			"$defs":{"X":{"type":"object","properties":{"meta":{"type":"object"}}}}}`,
		want: `{"type":"object","properties":{
			"x":{"type":"object","properties":{"meta":{"type":"string","description":"A JSON object, written as a string."}}},
			"y":{"type":"object","properties":{"meta":{"type":"string","description":"A JSON object, written as a string."}},"description":"again"},
			"u":{"anyOf":[{"type":"string","description":"A JSON object, written as a string."},{"type":"string"}]}}}`,
		diags: [][2]string{{"/$defs/X/properties/meta", "properties"}, {"/properties/u/oneOf/0", "properties"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			low, err := Lower(Gemini, json.RawMessage(tt.in))
			if err != nil {
				t.Fatalf("Lower: %v", err)
			}
			if got, want := string(low.Schema), compact(t, tt.want); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
			for _, d := range tt.diags {
				if !hasDiag(low.Diagnostics, d[0], d[1]) {
					t.Errorf("no diagnostic at %s %s; have %v", d[0], d[1], low.Diagnostics)
				}
			}
			orig, err := decodeOrdered([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range low.Diagnostics {
				if _, found := resolvePointer(orig, d.Pointer); !found {
					t.Errorf("diagnostic pointer %q is not in the original schema: %v", d.Pointer, d)
				}
				if d.Fatal {
					t.Errorf("fatal diagnostic %v", d)
				}
				if silent[d.Keyword] {
					t.Errorf("diagnostic for %s, which tells the model nothing: %v", d.Keyword, d)
				}
			}
		})
	}
}

func TestLowerGeminiFatal(t *testing.T) {
	tests := []struct{ name, in, ptr string }{
		{"recursive ref", `{"type":"object","properties":{"tree":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}`, "/$defs/node/properties/kids/items/$ref"},
		{"root recursion", `{"type":"object","properties":{"self":{"$ref":"#"}}}`, "/properties/self/$ref"},
		{"remote ref", `{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`, "/properties/a/$ref"},
		{"dangling ref", `{"type":"object","properties":{"a":{"$ref":"#/$defs/none"}}}`, "/properties/a/$ref"},
		{"allOf not mergeable", `{"type":"object","properties":{"a":{"allOf":[{"type":"string"},{"minLength":2}]}}}`, "/properties/a/allOf/0"},
		{"false schema", `{"type":"object","properties":{"a":false}}`, "/properties/a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			low, err := Lower(Gemini, json.RawMessage(tt.in))
			var le *LowerError
			if !errors.As(err, &le) {
				t.Fatalf("err = %v, want *LowerError", err)
			}
			if le.Pointer != tt.ptr {
				t.Errorf("pointer %q, want %q (%v)", le.Pointer, tt.ptr, err)
			}
			if low.Schema != nil {
				t.Errorf("schema %s returned with a fatal error", low.Schema)
			}
		})
	}
}

func TestLowerOpenAIStrict(t *testing.T) {
	tests := []struct{ name, in, want string }{{
		name: "optional fields become nullable and required",
		in: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{
			"q":{"type":"string","default":"x"},
			"n":{"type":"integer"},
			"mode":{"type":"string","enum":["a","b"]},
			"pt":{"$ref":"#/$defs/pt"},
			"tags":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"}},"required":["k"]}}},
			"required":["q"],
			"$defs":{"pt":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]}}}`,
		want: `{"type":"object","properties":{
			"q":{"type":"string","description":"Default: \"x\"."},
			"n":{"type":["integer","null"]},
			"mode":{"type":["string","null"],"enum":["a","b",null]},
			"pt":{"anyOf":[{"$ref":"#/$defs/pt"},{"type":"null"}]},
			"tags":{"type":["array","null"],"items":{"type":"object","properties":{"k":{"type":"string"}},"required":["k"],"additionalProperties":false}}},
			"required":["q","n","mode","pt","tags"],
			"$defs":{"pt":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"],"additionalProperties":false}},
			"additionalProperties":false}`,
	}, {
		name: "empty schema",
		in:   `{}`,
		want: `{"type":"object","properties":{},"additionalProperties":false,"required":[]}`,
	}, {
		name: "length bounds moved into the description",
		in:   `{"type":"object","properties":{"a":{"type":"string","minLength":2,"description":"A name"},"tags":{"type":"array","items":{"type":"string"},"uniqueItems":true}},"required":["a","tags"]}`,
		want: `{"type":"object","properties":{"a":{"type":"string","description":"A name. minLength: 2."},"tags":{"type":"array","items":{"type":"string"},"description":"uniqueItems: true."}},"required":["a","tags"],"additionalProperties":false}`,
	}, {
		name: "unsupported format moved into the description",
		in:   `{"type":"object","properties":{"u":{"type":"string","format":"uri","description":"Where."},"d":{"type":"string","format":"date"}},"required":["u","d"]}`,
		want: `{"type":"object","properties":{"u":{"type":"string","description":"Where. Format: uri."},"d":{"type":"string","format":"date"}},"required":["u","d"],"additionalProperties":false}`,
	}, {
		name: "recursive ref allowed",
		in:   `{"type":"object","properties":{"n":{"$ref":"#/$defs/node"}},"required":["n"],"$defs":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["kids"]}}}`,
		want: `{"type":"object","properties":{"n":{"$ref":"#/$defs/node"}},"required":["n"],"$defs":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["kids"],"additionalProperties":false}},"additionalProperties":false}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			low := lowerOpenAI(t, tt.in, true)
			for _, d := range low.Diagnostics {
				if silent[d.Keyword] {
					t.Errorf("diagnostic for %s, which tells the model nothing: %v", d.Keyword, d)
				}
			}
			if got, want := string(low.Schema), compact(t, tt.want); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

func TestLowerOpenAINotStrict(t *testing.T) {
	tests := []struct {
		name, in string
		want     string // "" → the input itself
		ptr, kw  string
	}{
		{"additionalProperties true", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":true}`, "", "/additionalProperties", "additionalProperties"},
		{"free-form nested object", `{"type":"object","properties":{"meta":{"type":"object"}}}`, "", "/properties/meta", "properties"},
		{"patternProperties", `{"type":"object","properties":{},"patternProperties":{"^x":{}}}`, "", "/patternProperties", "patternProperties"},
		{"oneOf", `{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`, "", "/properties/a/oneOf", "oneOf"},
		{"root anyOf", `{"type":"object","anyOf":[{"properties":{"a":{"type":"string"}}}]}`, "", "/anyOf", "anyOf"},
		{"missing root type fixed", `{"properties":{"m":{"type":"object","additionalProperties":{"type":"string"}}}}`,
			`{"properties":{"m":{"type":"object","additionalProperties":{"type":"string"}}},"type":"object"}`, "/properties/m/additionalProperties", "additionalProperties"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			low := lowerOpenAI(t, tt.in, false)
			want := tt.in
			if tt.want != "" {
				want = tt.want
			}
			if string(low.Schema) != want {
				t.Errorf("got  %s\nwant %s", low.Schema, want)
			}
			if !hasDiag(low.Diagnostics, tt.ptr, tt.kw) {
				t.Errorf("no diagnostic at %s %s: %v", tt.ptr, tt.kw, low.Diagnostics)
			}
		})
	}
	if _, err := Lower(OpenAI, json.RawMessage(`{"type":"string"}`)); err == nil {
		t.Error("root type string: no error")
	}
}

func TestDropNullOptionals(t *testing.T) {
	s := json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"},"n":{"type":"integer"},"z":{"type":["string","null"]},
		"o":{"$ref":"#/$defs/o"}},"required":["q"],"$defs":{"o":{"type":"object","properties":{"x":{"type":"string"}}}}}`)
	got, err := DropNullOptionals(s, json.RawMessage(`{"q":null,"n":null,"z":null,"o":{"x":null}}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"q":null,"z":null,"o":{}}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	same := json.RawMessage(`{ "q": "a" }`)
	if got, _ := DropNullOptionals(s, same); !bytes.Equal(got, same) {
		t.Errorf("unchanged args re-encoded: %s", got)
	}
}

func TestLint(t *testing.T) {
	ds := Lint(Gemini, "1.search", json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"http://x/y"}},"additionalProperties":false}`))
	if !hasDiag(ds, "", "name") || !hasDiag(ds, "/properties/a/$ref", "$ref") || !hasDiag(ds, "/additionalProperties", "additionalProperties") {
		t.Errorf("Lint: %v", ds)
	}
	fatal := 0
	for _, d := range ds {
		if d.Fatal {
			fatal++
		}
	}
	if fatal != 2 {
		t.Errorf("want 2 fatal (name, ref), got %d: %v", fatal, ds)
	}
	if ds := Lint(Anthropic, "ok_name", json.RawMessage(`{"type":"object"}`)); len(ds) != 0 {
		t.Errorf("clean tool: %v", ds)
	}
	if ds := Lint(OpenAI, "x", json.RawMessage(`[`)); len(ds) != 1 || !ds[0].Fatal || !strings.Contains(ds[0].Message, "JSON") {
		t.Errorf("invalid JSON: %v", ds)
	}
}

func TestLowerGeminiExponentialRefs(t *testing.T) {
	// Each definition refers twice to the next: 2^40 subschemas if inlined.
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{"x":{"$ref":"#/$defs/d0"}},"$defs":{`)
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, `"d%d":{"type":"object","properties":{"a":{"$ref":"#/$defs/d%d"},"b":{"$ref":"#/$defs/d%d"}}},`, i, i+1, i+1)
	}
	b.WriteString(`"d40":{"type":"string"}}}`)
	_, err := Lower(Gemini, json.RawMessage(b.String()))
	if err == nil || !strings.Contains(err.Error(), "too large") {
		t.Fatalf("err = %v, want too large", err)
	}
}

// OpenAI's size limits on strict schemas: at the limit a schema stays
// strict, one over it turns strict off with a diagnostic saying which limit.
func TestLowerOpenAIStrictLimits(t *testing.T) {
	props := func(n int) string { // n string properties, all required
		var p, r []string
		for i := range n {
			p = append(p, fmt.Sprintf(`"p%d":{"type":"string"}`, i))
			r = append(r, fmt.Sprintf(`"p%d"`, i))
		}
		return `{"type":"object","properties":{` + strings.Join(p, ",") + `},"required":[` + strings.Join(r, ",") + `]}`
	}
	nested := func(levels int) string { // levels objects, one inside the other
		s := `{"type":"object","properties":{}}`
		for range levels - 1 {
			s = `{"type":"object","properties":{"n":` + s + `},"required":["n"]}`
		}
		return s
	}
	enums := func(n, size int) string { // n enum values of size characters
		var vals []string
		for i := range n {
			vals = append(vals, fmt.Sprintf(`"%0*d"`, size, i))
		}
		return `{"type":"object","properties":{"e":{"type":"string","enum":[` + strings.Join(vals, ",") + `]}},"required":["e"]}`
	}
	tests := []struct {
		name, at, over string
		msg            string
	}{
		{"properties", props(5000), props(5001), "5001 object properties"},
		{"nesting", nested(10), nested(11), "11 levels of object nesting"},
		{"enum values", enums(1000, 4), enums(1001, 4), "1001 enum values"},
		{"characters", enums(1000, 119), enums(1000, 121), "characters long in all"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lowerOpenAI(t, tt.at, true)
			low := lowerOpenAI(t, tt.over, false)
			found := false
			for _, d := range low.Diagnostics {
				found = found || strings.Contains(d.Message, tt.msg)
			}
			if !found {
				t.Errorf("no diagnostic saying %q: %v", tt.msg, low.Diagnostics)
			}
		})
	}
}

func TestDecodeStringified(t *testing.T) {
	s := json.RawMessage(`{"type":"object","properties":{
		"meta":{"type":"object"},
		"list":{"type":"array","items":{"$ref":"#/$defs/row"}},
		"text":{"type":["string","object"]},
		"any":{},
		"bad":{"type":"object"}},
		"additionalProperties":{"type":"object"},
		"$defs":{"row":{"type":"object","properties":{"inner":{"type":"object"}}}}}`)
	got, err := DecodeStringified(s, json.RawMessage(
		`{"meta":"{\"a\":1}","list":"[{\"inner\":\"{\\\"b\\\":2}\"}]","text":"{\"c\":3}","any":"{}","bad":"{not json","extra":"{\"d\":4}"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"meta":{"a":1},"list":[{"inner":{"b":2}}],"text":"{\"c\":3}","any":"{}","bad":"{not json","extra":{"d":4}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	same := json.RawMessage(`{"meta": {"a": 1}}`)
	if got, _ := DecodeStringified(s, same); !bytes.Equal(got, same) {
		t.Errorf("arguments with nothing to decode came back as %s", got)
	}
}

func TestNoArguments(t *testing.T) {
	for s, want := range map[string]bool{
		``:                                  true,
		`{}`:                                true,
		`{"type":"object","properties":{}}`: true,
		`{"type":"object","description":"No arguments.","required":[]}`: true,
		`{"type":"object","properties":{"a":{"type":"string"}}}`:        false,
		`{"type":"object","additionalProperties":{"type":"string"}}`:    false,
		`{"anyOf":[{"type":"object"}]}`:                                 false,
		`{"type":"string"}`:                                             false,
	} {
		if got := NoArguments(json.RawMessage(s)); got != want {
			t.Errorf("NoArguments(%s) = %v, want %v", s, got, want)
		}
	}
}

// Each keyword lowering changes, drops or refuses is said in these words,
// in the order of the schema: the whole text of every diagnostic is held.
func TestLowerSaysEveryDiagnostic(t *testing.T) {
	tests := []struct {
		name   string
		vendor Vendor
		in     string
		want   []string
	}{{
		name: "Gemini", vendor: Gemini,
		in: `{"type":"object","$id":"urn:x","properties":{
			"v":{"type":["string","integer","null"],"minLength":1,"minimum":0,"format":"int32"},
			"k":{"const":"x"},"e":{"type":"integer","description":"Pick","enum":[1,null]},
			"u":{"oneOf":[{"type":"string"},{"type":"integer"}]},
			"t":{"type":"array","items":[{"type":"string"},{"type":"integer"}]},
			"f":{"type":"string","format":"uri","exclusiveMinimum":0,"examples":["a"]},
			"a":{"allOf":[{"type":"object","properties":{"x":{"type":"string"}}},{"properties":{"y":{"type":"string"}}}]},
			"m":{"type":"object","additionalProperties":{"type":"string"}}},"if":{}}`,
		want: []string{
			`/properties/v/type type: type array [string integer] became anyOf: Gemini takes one type per schema`,
			`/properties/v/format format: dropped format "int32": Gemini accepts only enum and date-time for strings, float/double, int32/int64 for numbers`,
			`/properties/k/const const: const became a one-value enum`,
			`/properties/e/enum enum: moved enum into the description: Gemini's enum holds only strings`,
			`/properties/u/oneOf oneOf: oneOf became anyOf: Gemini has no oneOf, so exclusivity is not enforced`,
			`/properties/t/items items: tuple items became one item schema (anyOf): Gemini has no tuples`,
			`/properties/f/format format: dropped format "uri": Gemini accepts only enum and date-time for strings, float/double, int32/int64 for numbers`,
			`/properties/f/exclusiveMinimum exclusiveMinimum: dropped exclusiveMinimum: Gemini has only minimum and maximum`,
			`/properties/f/examples examples: dropped examples: not in Gemini's Schema object`,
			`/properties/a/allOf allOf: allOf merged into one object schema`,
			`/properties/m/additionalProperties additionalProperties: dropped additionalProperties: not in Gemini's Schema object`,
			`/if if: dropped if: not in Gemini's Schema object`,
			`/properties/m properties: free-form object became a string holding JSON: Gemini refuses an object without properties`,
		},
	}, {
		name: "Gemini, fatal", vendor: Gemini,
		in: `{"type":"object","properties":{"a":{"type":7},"b":{"enum":"x"},"c":{"oneOf":{}},"d":{"type":"object","properties":[]},
			"e":{"allOf":[{"type":"string"}]},"f":false,"g":{"$ref":"#/$defs/none"}}}`,
		want: []string{
			`/properties/a/type type: malformed type (fatal)`,
			`/properties/b/enum enum: enum is not an array (fatal)`,
			`/properties/c/oneOf oneOf: oneOf is not an array (fatal)`,
			`/properties/d/properties properties: properties is not an object (fatal)`,
			`/properties/e/allOf/0 allOf: allOf of non-object schemas cannot be merged for Gemini (fatal)`,
			`/properties/f: schema false accepts nothing; Gemini cannot express it (fatal)`,
			`/properties/g/$ref $ref: reference "#/$defs/none" points at nothing (fatal)`,
			`/properties/d properties: free-form object became a string holding JSON: Gemini refuses an object without properties`,
		},
	}, {
		name: "OpenAI, strict", vendor: OpenAI,
		in: `{"type":"object","$schema":"x","properties":{"q":{"type":"string","default":"x","minLength":1,"format":"uri","examples":["a"],"$comment":"c"},
			"d":{"type":"string","format":"date"},"r":{"type":"array","items":{"type":"string"},"uniqueItems":true}},"required":["q","d"]}`,
		want: []string{
			`/properties/q/default default: moved default into the description: strict mode refuses the keyword`,
			`/properties/q/minLength minLength: moved minLength into the description: strict mode refuses the keyword`,
			`/properties/q/format format: moved format "uri" into the description: strict mode does not support it`,
			`/properties/q/examples examples: dropped examples: strict mode refuses it`,
			`/properties/r/uniqueItems uniqueItems: moved uniqueItems into the description: strict mode refuses the keyword`,
			`/properties/r required: optional property made required and nullable for strict mode`,
		},
	}, {
		name: "OpenAI, not strict", vendor: OpenAI,
		in: `{"type":"object","anyOf":[{"properties":{}}],"properties":{"a":{"oneOf":[]},"b":{"$ref":"https://x/y"},"c":{"type":"array","items":[{}]},
			"d":{"type":"object"},"e":{"type":"object","properties":{},"additionalProperties":true},"f":true,"g":{"not":{}}}}`,
		want: []string{
			`/anyOf anyOf: strict mode off: anyOf at the root is not supported`,
			`/properties/a/oneOf oneOf: strict mode off: oneOf is not supported`,
			`/properties/b/$ref $ref: strict mode off: reference "https://x/y" is not local`,
			`/properties/c/items items: strict mode off: tuples are not supported`,
			`/properties/d properties: strict mode off: a free-form object (no properties) is not supported`,
			`/properties/e/additionalProperties additionalProperties: strict mode off: the object allows additional properties`,
			`/properties/f: strict mode off: a boolean schema cannot be strict`,
			`/properties/g/not not: strict mode off: not is not supported`,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			low, _ := Lower(tt.vendor, json.RawMessage(tt.in))
			var got []string
			for _, d := range low.Diagnostics {
				got = append(got, d.String())
			}
			if g, w := strings.Join(got, "\n"), strings.Join(tt.want, "\n"); g != w {
				t.Errorf("diagnostics\n%s\nwant\n%s", g, w)
			}
		})
	}
}
