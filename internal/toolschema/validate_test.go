package toolschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// Validate says each problem in these words, the whole message held (a
// model reads it to fix its call), but for a want ending in "…", the start
// of a message written by jsonschema-go or encoding/json.
func TestValidator(t *testing.T) {
	long := strings.Repeat("é", 150)
	draft07 := `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object",
		"properties":{"a":{"type":"string"},"count":{"type":"integer","minimum":1},"mode":{"$ref":"#/definitions/mode"},
		"items":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string","pattern":"^[a-z]+$"}},"required":["id"]}}},
		"required":["a"],"additionalProperties":false,
		"definitions":{"mode":{"type":"string","enum":["fast","slow"]}}}`
	tests := []struct {
		name, schema, args string
		want               string // "" → valid; a prefix if it ends in "…"
		ptr                string
	}{
		{"draft-07 valid", draft07, `{"a":"x","count":2,"mode":"fast","items":[{"id":"ab"}]}`, "", ""},
		{"empty args need required", draft07, ``, `missing required argument "a"`, "/a"},
		{"wrong type", draft07, `{"a":"x","count":"3"}`, `argument "count": want integer, got string`, "/count"},
		{"not an integer", draft07, `{"a":"x","count":1.5}`, `argument "count": want integer, got number`, "/count"},
		{"minimum", draft07, `{"a":"x","count":0}`, `argument "count": 0 is less than the minimum 1`, "/count"},
		{"enum through definitions ref", draft07, `{"a":"x","mode":"turbo"}`, `argument "mode": want one of ["fast","slow"], got "turbo"`, "/mode"},
		{"unexpected", draft07, `{"a":"x","b":1}`, `unexpected argument "b" (allowed: a, count, mode, items)`, "/b"},
		{"nested required", draft07, `{"a":"x","items":[{"id":"ok"},{}]}`, `missing required argument "items[1].id"`, "/items/1/id"},
		{"nested pattern", draft07, `{"a":"x","items":[{"id":"A1"}]}`, `argument "items[0].id": "A1" does not match the pattern "^[a-z]+$"`, "/items/0/id"},
		{"not an object", draft07, `[1]`, `arguments: want object, got array`, ""},
		{"2020-12 $defs", `{"type":"object","properties":{"p":{"$ref":"#/$defs/p"}},"$defs":{"p":{"type":"boolean"}}}`, `{"p":"yes"}`, `argument "p": want boolean, got string`, "/p"},
		{"unknown draft stripped", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"a":{"type":"string"}}}`, `{"a":"x"}`, "", ""},
		{"empty schema", ``, `{"anything":1}`, "", ""},
		{"nullable union", `{"type":"object","properties":{"n":{"type":["integer","null"]}}}`, `{"n":true}`, `argument "n": want integer or null, got boolean`, "/n"},
		{"fallback message", `{"type":"object","properties":{"a":{"type":"string","not":{"const":"x"}}}}`, `{"a":"x"}`, "arguments do not match the input schema: not: validated against…", ""},
		{"invalid JSON", `{}`, `{`, "arguments are not valid JSON…", ""},
		{"every problem at once", draft07, `{"count":0,"mode":"turbo","b":1,"items":[{"id":7}]}`,
			`missing required argument "a"; argument "count": 0 is less than the minimum 1; argument "mode": want one of ["fast","slow"], got "turbo"; unexpected argument "b" (allowed: a, count, mode, items); argument "items[0].id": want string, got integer`, "/a"},
		// Each keyword the locator reads, its whole message.
		{"false schema", `{"properties":{"a":false}}`, `{"a":1}`, `argument "a": not allowed`, "/a"},
		{"type", `{"properties":{"a":{"type":"string"}}}`, `{"a":1}`, `argument "a": want string, got integer`, "/a"},
		{"type stops the rest", `{"properties":{"a":{"type":"string","minimum":5,"enum":[1]}}}`, `{"a":1}`, `argument "a": want string, got integer`, "/a"},
		{"number takes an integer", `{"properties":{"a":{"type":"number","maximum":1}}}`, `{"a":2}`, `argument "a": 2 is more than the maximum 1`, "/a"},
		{"several types", `{"properties":{"a":{"type":["string","array","null"]}}}`, `{"a":{}}`, `argument "a": want string or array or null, got object`, "/a"},
		{"enum of containers", `{"properties":{"a":{"enum":[{"x":[1,2]},[1],"q",null]}}}`, `{"a":{"x":[1,3]}}`, `argument "a": want one of [{"x":[1,2]},[1],"q",null], got {"x":[1,3]}`, "/a"},
		{"enum by value", `{"properties":{"a":{"enum":[1.0]}}}`, `{"a":1}`, "", ""},
		{"const", `{"properties":{"a":{"const":{"k":[1,2]}}}}`, `{"a":{"k":[1]}}`, `argument "a": want {"k":[1,2]}, got {"k":[1]}`, "/a"},
		{"minimum", `{"properties":{"a":{"minimum":1.5}}}`, `{"a":1}`, `argument "a": 1 is less than the minimum 1.5`, "/a"},
		{"maximum", `{"properties":{"a":{"maximum":10}}}`, `{"a":10.5}`, `argument "a": 10.5 is more than the maximum 10`, "/a"},
		{"minLength counts characters", `{"properties":{"a":{"minLength":3}}}`, `{"a":"éé"}`, `argument "a": want at least 3 characters, got 2`, "/a"},
		{"minLength of one", `{"properties":{"a":{"minLength":1}}}`, `{"a":""}`, `argument "a": want at least 1 character, got 0`, "/a"},
		{"maxLength", `{"properties":{"a":{"maxLength":2}}}`, `{"a":"abc"}`, `argument "a": want at most 2 characters, got 3`, "/a"},
		{"pattern", `{"properties":{"a":{"pattern":"^x"}}}`, `{"a":"y"}`, `argument "a": "y" does not match the pattern "^x"`, "/a"},
		{"minItems", `{"properties":{"a":{"minItems":2}}}`, `{"a":[1]}`, `argument "a": want at least 2 items, got 1`, "/a"},
		{"maxItems", `{"properties":{"a":{"maxItems":1}}}`, `{"a":[1,2]}`, `argument "a": want at most 1 item, got 2`, "/a"},
		{"items", `{"properties":{"a":{"items":{"type":"integer"}}}}`, `{"a":[1,"x"]}`, `argument "a[1]": want integer, got string`, "/a/1"},
		{"tuple items left to jsonschema-go", `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"a":{"items":[{"type":"integer"}]}}}`, `{"a":["x"]}`, `arguments do not match the input schema: …`, ""},
		{"required", `{"properties":{"o":{"required":["k"]}}}`, `{"o":{}}`, `missing required argument "o.k"`, "/o/k"},
		{"unexpected, nothing allowed", `{"additionalProperties":false}`, `{"x/y~z":1}`, `unexpected argument "x/y~z"`, "/x~1y~0z"},
		{"additionalProperties schema", `{"properties":{"a":{}},"additionalProperties":{"type":"string"}}`, `{"a":1,"b":2}`, `argument "b": want string, got integer`, "/b"},
		{"patternProperties left to jsonschema-go", `{"patternProperties":{"^x":{"type":"string"}},"additionalProperties":false}`, `{"xa":1}`, `arguments do not match the input schema: …`, ""},
		{"$ref", `{"properties":{"a":{"$ref":"#/$defs/d"}},"$defs":{"d":{"maxItems":0}}}`, `{"a":[{}]}`, `argument "a": want at most 0 items, got 1`, "/a"},
		{"long string cut", `{"properties":{"a":{"enum":["x"]}}}`, `{"a":"` + long + `"}`, `argument "a": want one of ["x"], got "` + strings.Repeat("é", 100) + `…" (300 bytes)`, "/a"},
		{"large array summed up", `{"properties":{"a":{"const":1}}}`, `{"a":[` + strings.Repeat(`"abcdefghij",`, 20) + `1]}`, `argument "a": want 1, got [21 items]`, "/a"},
		{"number keywords in order", `{"properties":{"a":{"enum":[7],"const":8,"minimum":5,"maximum":2}}}`, `{"a":3}`,
			`argument "a": want one of [7], got 3; argument "a": want 8, got 3; argument "a": 3 is less than the minimum 5; argument "a": 3 is more than the maximum 2`, "/a"},
		{"string keywords in order", `{"properties":{"a":{"enum":["x"],"const":"y","minLength":5,"maxLength":1,"pattern":"^z"}}}`, `{"a":"abc"}`,
			`argument "a": want one of ["x"], got "abc"; argument "a": want "y", got "abc"; argument "a": want at least 5 characters, got 3; argument "a": want at most 1 character, got 3; argument "a": "abc" does not match the pattern "^z"`, "/a"},
		{"array keywords in order", `{"properties":{"a":{"enum":[[1]],"const":[2],"minItems":5,"maxItems":1,"items":{"type":"string"}}}}`, `{"a":[1,"b",3]}`,
			`argument "a": want one of [[1]], got [1,"b",3]; argument "a": want [2], got [1,"b",3]; argument "a": want at least 5 items, got 3; argument "a": want at most 1 item, got 3; argument "a[0]": want string, got integer; argument "a[2]": want string, got integer`, "/a"},
		{"object keywords in order", `{"enum":[{}],"const":{"k":1},"required":["r"],"properties":{"p":{"type":"string"}},"additionalProperties":false}`, `{"q":2,"p":1}`,
			`arguments: want one of [{}], got {"q":2,"p":1}; arguments: want {"k":1}, got {"q":2,"p":1}; missing required argument "r"; unexpected argument "q" (allowed: p); argument "p": want string, got integer`, ""},
		{"large object summed up", `{"properties":{"a":{"const":1}}}`, `{"a":{"k":"` + long + `"}}`, `argument "a": want 1, got {1 property}`, "/a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Compile(json.RawMessage(tt.schema))
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			err = v.Validate(json.RawMessage(tt.args))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("err = %v, want *ValidationError", err)
			}
			prefix, cut := strings.CutSuffix(tt.want, "…")
			if ve.Message != tt.want && !(cut && strings.HasPrefix(ve.Message, prefix)) {
				t.Errorf("message %q\nwant    %q", ve.Message, tt.want)
			}
			if ve.Pointer != tt.ptr {
				t.Errorf("pointer %q, want %q", ve.Pointer, tt.ptr)
			}
			if n := strings.Count(tt.want, "; ") + 1; n > 1 && len(ve.Problems) != n {
				t.Errorf("%d problems listed, want %d", len(ve.Problems), n)
			}
		})
	}
}

func TestCompileRefusesRemoteRef(t *testing.T) {
	_, err := Compile(json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}`))
	if err == nil {
		t.Fatal("remote $ref compiled")
	}
	if _, err := Compile(json.RawMessage(`{"type":`)); err == nil {
		t.Fatal("invalid JSON compiled")
	}
}

// Prepare does both repairs in one walk, then validates: a stringified
// object is decoded and the optional nulls inside it dropped, and a null
// under additionalProperties stays, as DropNullOptionals leaves it.
func TestPrepare(t *testing.T) {
	v, err := Compile(json.RawMessage(`{"type":"object","properties":{
		"q":{"type":"string"},
		"o":{"$ref":"#/$defs/o"},
		"m":{"type":"object","additionalProperties":{"type":"object","properties":{"y":{"type":"string"}}}}},
		"required":["q"],
		"$defs":{"o":{"type":"object","properties":{"x":{"type":"string"},"n":{"type":"integer"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := v.Prepare(json.RawMessage(`{"q":"a","o":"{\"x\":null,\"n\":2}","m":"{\"k\":{\"y\":\"z\"}}"}`), true)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"q":"a","o":{"n":2},"m":{"k":{"y":"z"}}}`; string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if _, err := v.Prepare(json.RawMessage(`{"q":"a","m":{"k":{"y":null}}}`), true); err == nil || !strings.Contains(err.Error(), `"m.k.y"`) {
		t.Errorf("null under additionalProperties: err = %v, want it kept and refused", err)
	}
	if got, err := v.Prepare(json.RawMessage(`{"q":"a","o":{"x":null}}`), false); err == nil {
		t.Errorf("a null kept without dropNulls passed validation: %s", got)
	}
	same := json.RawMessage(`{ "q": "a" }`)
	if got, err := v.Prepare(same, true); err != nil || !bytes.Equal(got, same) {
		t.Errorf("unchanged args came back as %s, %v", got, err)
	}
	if got, err := v.Prepare(nil, true); err == nil {
		t.Errorf("empty args, q required: %s passed", got)
	}
	// An empty schema accepts anything, but an MCP server takes an object.
	any, err := Compile(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{`[1]`, `"x"`, `{`} {
		var ve *ValidationError
		if _, err := any.Prepare(json.RawMessage(args), false); !errors.As(err, &ve) {
			t.Errorf("args %s: err = %v, want *ValidationError", args, err)
		}
	}
	if got, err := any.Prepare(nil, false); err != nil || string(got) != `{}` {
		t.Errorf("empty args: %s, %v; want {}", got, err)
	}
}

// Compile reads loosely declared drafts, for input and output schemas alike;
// ValidateValue checks any value, such as a tool's structured result.
func TestLooseDrafts(t *testing.T) {
	for _, tt := range []struct{ name, schema string }{
		{"draft-04", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`},
		{"draft-07 without #", `{"$schema":"http://json-schema.org/draft-07/schema","type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`},
		{"2019-09", `{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Compile(json.RawMessage(tt.schema))
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			if err := v.ValidateValue(json.RawMessage(`{"n":1}`)); err != nil {
				t.Errorf("valid output refused: %v", err)
			}
			if err := v.ValidateValue(json.RawMessage(`{"n":"one"}`)); err == nil || !strings.Contains(err.Error(), "type") {
				t.Errorf("invalid output: %v, want a type error", err)
			}
			if err := v.Validate(json.RawMessage(`{}`)); err == nil {
				t.Error("missing n accepted")
			}
		})
	}
	v, err := Compile(nil)
	if err != nil {
		t.Fatalf("empty schema: %v", err)
	}
	if err := v.ValidateValue(json.RawMessage(`[1,"a"]`)); err != nil {
		t.Errorf("empty schema refused a value: %v", err)
	}
}

// BenchmarkPrepare measures the work of a call on a large schema: one
// Prepare against the two repairs and Validate it replaces.
func BenchmarkPrepare(b *testing.B) {
	var props []string
	for i := range 60 {
		props = append(props, fmt.Sprintf(`"p%d":{"type":"object","description":"property number %d of a large schema","properties":{"a":{"type":"string"},"b":{"type":"integer"}}}`, i, i))
	}
	s := json.RawMessage(`{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":["p0"]}`)
	args := json.RawMessage(`{"p0":{"a":"x","b":null},"p1":"{\"a\":\"y\"}"}`)
	v, err := Compile(s)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("Prepare", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := v.Prepare(args, true); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("separately", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			a, _ := DecodeStringified(s, args)
			a, _ = DropNullOptionals(s, a)
			if err := v.Validate(a); err != nil {
				b.Fatal(err)
			}
		}
	})
}
