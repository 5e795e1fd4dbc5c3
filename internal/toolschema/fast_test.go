package toolschema

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// plainCases are schemas the plain check takes, each with values on both
// sides of every keyword it reads.
var plainCases = []struct {
	schema string
	values []string
}{
	{`{"type":"object","properties":{"query":{"type":"string","minLength":1}},"required":["query"],"additionalProperties":false}`,
		[]string{`{"query":"milk"}`, `{"query":""}`, `{}`, `{"query":"a","x":1}`, `{"query":7}`, `{"query":null}`, `[]`, `"q"`}},
	{`{"type":"object","properties":{"to":{"type":"integer","minimum":1,"maximum":50},"ms":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1.5,"default":1}},"required":["to"]}`,
		[]string{`{"to":1}`, `{"to":50}`, `{"to":0}`, `{"to":51}`, `{"to":1.5}`, `{"to":2.0}`, `{"to":1e1}`, `{"to":1e400}`, `{"to":"3"}`,
			`{"to":3,"ms":0}`, `{"to":3,"ms":1.5}`, `{"to":3,"ms":1.4999}`, `{"to":3,"ms":0.0001}`, `{"to":3,"other":[1]}`}},
	{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"tags":{"type":"array","items":{"type":"string","enum":["work","home"]},"minItems":1,"maxItems":2}}}`,
		[]string{`{"tags":["work"]}`, `{"tags":["work","home"]}`, `{"tags":[]}`, `{"tags":["work","home","work"]}`, `{"tags":["play"]}`, `{"tags":[1]}`, `{"tags":"work"}`}},
	{`{"type":["object","null"],"properties":{"s":{"type":"string","maxLength":3,"pattern":"^[a-zé]+$"}},"additionalProperties":{"type":"boolean"},"minProperties":1,"maxProperties":2}`,
		[]string{`null`, `{"s":"abc"}`, `{"s":"ééé"}`, `{"s":"éééé"}`, `{"s":"AB"}`, `{"b":true}`, `{"b":1}`, `{}`, `{"s":"a","b":true,"c":false}`, `{"s":"a","s":"B"}`}},
	{`{"properties":{"any":true,"n":{"enum":["a"]},"z":{"type":"number","description":"annotated","examples":[1],"x-extra":{"type":"string"}}}}`,
		[]string{`{"any":{"deep":[1,{"x":null}]}}`, `{"n":"a"}`, `{"n":"b"}`, `{"n":1}`, `{"z":-0.5}`, `{"z":"1"}`, `7`, `"x"`, `true`}},
	{`{"type":"object","required":["a","a","b"]}`,
		[]string{`{"a":1,"b":2}`, `{"a":1}`, `{"b":1,"a":2,"c":3}`}},
	{`{"type":"object","properties":{},"additionalProperties":false}`,
		[]string{`{}`, `{"a":1}`}},
	{`{"type":"integer","enum":[]}`, []string{`1`, `"a"`}},
}

// TestPlainCheckAgreesWithJSONSchemaGo checks, for schemas the plain check
// takes, that it accepts exactly what jsonschema-go accepts.
func TestPlainCheckAgreesWithJSONSchemaGo(t *testing.T) {
	for _, c := range plainCases {
		v, err := Compile(json.RawMessage(c.schema))
		if err != nil {
			t.Fatalf("Compile(%s): %v", c.schema, err)
		}
		if v.plain == nil {
			t.Errorf("the plain check does not take %s", c.schema)
			continue
		}
		accepted := 0
		for _, value := range c.values {
			a, err := decodeOrdered([]byte(value))
			if err != nil {
				t.Fatal(err)
			}
			plain, full := v.plain.accepts(a), v.judge(a)
			if plain != (full == nil) {
				t.Errorf("%s on %s: the plain check accepts: %v; jsonschema-go: %v", c.schema, value, plain, full)
			}
			if plain {
				accepted++
			}
		}
		if accepted == len(c.values) {
			t.Errorf("%s: every value accepted; the cases test nothing refused", c.schema)
		}
	}
}

// TestPlainCheckLeavesTheRest checks that a schema with a keyword the
// plain check does not read is left to jsonschema-go whole.
func TestPlainCheckLeavesTheRest(t *testing.T) {
	for _, s := range []string{
		`{"properties":{"a":{"$ref":"#/$defs/a"}},"$defs":{"a":{"type":"string"}}}`,
		`{"properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`,
		`{"properties":{"a":{"const":"x"}}}`,
		`{"properties":{"a":{"enum":["x",1]}}}`,
		`{"properties":{"a":{"type":"number","multipleOf":2}}}`,
		`{"properties":{"a":{"type":"array","uniqueItems":true}}}`,
		`{"properties":{"a":{"type":"array","items":[{"type":"string"}]}}}`,
		`{"properties":{"a":{"type":"array","prefixItems":[{"type":"string"}]}}}`,
		`{"properties":{"a":false}}`,
		`{"patternProperties":{"^x":{"type":"string"}}}`,
		`{"properties":{"a":{"type":"strin"}}}`,
		`{"type":"object","propertyNames":{"maxLength":3}}`,
		`{"type":"object","dependentRequired":{"a":["b"]}}`,
		`{"not":{"type":"string"}}`,
		`{"if":{"type":"string"},"then":{"minLength":1}}`,
	} {
		v, err := Compile(json.RawMessage(s))
		if err != nil {
			t.Fatalf("Compile(%s): %v", s, err)
		}
		if v.plain != nil {
			t.Errorf("the plain check takes %s", s)
		}
	}
}

// TestPrepareAllocations holds the cost of checking a call's arguments
// against an ordinary tool schema (the demo's search_notes): a decode that
// allocates a value at a time and the plain check, where jsonschema-go and
// the token decoder allocated 44 times.
func TestPrepareAllocations(t *testing.T) {
	v, err := Compile(json.RawMessage(plainCases[0].schema))
	if err != nil {
		t.Fatal(err)
	}
	args := json.RawMessage(`{"query": "milk"}`)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := v.Prepare(args, false); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 5 {
		t.Errorf("Prepare allocates %v times a call; want at most 5", allocs)
	}
}

// TestDecodeValidAsTokens checks that valid JSON decodes to what the token
// decoder gives, strings with escapes and bytes that are not UTF-8
// included, and that depth and errors are the token decoder's.
func TestDecodeValidAsTokens(t *testing.T) {
	deep := ""
	for range maxDepth + 1 {
		deep += "["
	}
	for _, in := range []string{
		`{"a":"b","c":[1,-2.5e3,true,false,null,{}],"a":"again","":[]}`,
		` { "k" : "\u00e9\n\"\\\/" , "\ud83d\ude00":"x\ud800y" } `,
		"\"bad \xff utf8\"", "\"é\"", `0`, `[]`, `[[],[{}]]`,
		`{"a":1,}`, `[1 2]`, `{"a"}`, ``, `nul`, `"x" "y"`, deep,
	} {
		got, gotErr := decodeOrdered([]byte(in))
		want, wantErr := decodeTokens([]byte(in))
		if !reflect.DeepEqual(got, want) || (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Errorf("decodeOrdered(%.40q) = %#v, %v; the token decoder: %#v, %v", in, got, gotErr, want, wantErr)
		}
	}
}

// TestPlainCheckAgreesOnRandomSchemas checks the plain check against
// jsonschema-go on schemas and values drawn from the keywords it reads
// (a fixed seed: the same draws every run).
func TestPlainCheckAgreesOnRandomSchemas(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 10))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	var genSchema func(depth int) string
	genSchema = func(depth int) string {
		var kw []string
		if r.IntN(2) == 0 {
			kw = append(kw, `"type":`+pick(`"string"`, `"integer"`, `"number"`, `"boolean"`, `"null"`, `"object"`, `"array"`, `["string","null"]`, `["number","string"]`, `["integer"]`))
		}
		if r.IntN(4) == 0 {
			kw = append(kw, `"enum":`+pick(`["a","b"]`, `["1"]`, `[""]`))
		}
		for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
			if r.IntN(5) == 0 {
				kw = append(kw, `"`+k+`":`+pick("0", "1", "-1.5", "2.5", "10"))
			}
		}
		for _, k := range []string{"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"} {
			if r.IntN(6) == 0 {
				kw = append(kw, `"`+k+`":`+pick("0", "1", "2"))
			}
		}
		if r.IntN(8) == 0 {
			kw = append(kw, `"pattern":`+pick(`"^a"`, `"b$"`, `"é"`))
		}
		if depth < 3 && r.IntN(3) == 0 {
			kw = append(kw, `"items":`+genSchema(depth+1))
		}
		if depth < 3 && r.IntN(2) == 0 {
			var props []string
			for _, name := range []string{"a", "b", "c"} {
				if r.IntN(2) == 0 {
					props = append(props, `"`+name+`":`+pick(genSchema(depth+1), "true", "{}"))
				}
			}
			kw = append(kw, `"properties":{`+strings.Join(props, ",")+`}`)
		}
		if r.IntN(3) == 0 {
			kw = append(kw, `"required":`+pick(`["a"]`, `["a","b"]`, `["c","c"]`, `[]`))
		}
		if r.IntN(3) == 0 {
			add := "false"
			if depth < 3 {
				add = pick("false", "true", genSchema(depth+1))
			}
			kw = append(kw, `"additionalProperties":`+add)
		}
		if r.IntN(6) == 0 {
			kw = append(kw, `"description":"d","default":1,"x-any":{"type":"string"}`)
		}
		if depth == 0 && r.IntN(4) == 0 {
			kw = append(kw, `"$schema":"http://json-schema.org/draft-07/schema#"`)
		}
		r.Shuffle(len(kw), func(i, j int) { kw[i], kw[j] = kw[j], kw[i] })
		return "{" + strings.Join(kw, ",") + "}"
	}
	var genValue func(depth int) string
	genValue = func(depth int) string {
		switch n := r.IntN(10); {
		case n == 0 && depth < 3:
			var ms []string
			for _, name := range []string{"a", "b", "c", "d"} {
				if r.IntN(2) == 0 {
					ms = append(ms, `"`+name+`":`+genValue(depth+1))
				}
			}
			return "{" + strings.Join(ms, ",") + "}"
		case n == 1 && depth < 3:
			var es []string
			for range r.IntN(4) {
				es = append(es, genValue(depth+1))
			}
			return "[" + strings.Join(es, ",") + "]"
		case n < 5:
			return pick(`"a"`, `"b"`, `""`, `"ab"`, `"é"`, `"1"`, `"aéb"`)
		case n < 8:
			return pick("0", "1", "-1.5", "2.5", "10", "2.0", "1e1", "-0", "1e400", "0.1")
		}
		return pick("true", "false", "null")
	}
	taken, accepted, refused := 0, 0, 0
	for range 3000 {
		s := genSchema(0)
		v, err := Compile(json.RawMessage(s))
		if err != nil {
			t.Fatalf("Compile(%s): %v", s, err)
		}
		if v.plain == nil {
			t.Fatalf("the plain check does not take %s", s)
		}
		taken++
		for range 5 {
			value := genValue(0)
			if r.IntN(2) == 0 {
				value = `{"a":` + genValue(1) + `,"b":` + genValue(1) + `}`
			}
			a, err := decodeOrdered([]byte(value))
			if err != nil {
				t.Fatal(err)
			}
			plain, full := v.plain.accepts(a), v.judge(a)
			if plain != (full == nil) {
				t.Fatalf("%s on %s: the plain check accepts: %v; jsonschema-go: %v", s, value, plain, full)
			}
			if plain {
				accepted++
			} else {
				refused++
			}
		}
	}
	if accepted < 1000 || refused < 1000 {
		t.Errorf("%d schemas: %d values accepted, %d refused; want both many", taken, accepted, refused)
	}
}
