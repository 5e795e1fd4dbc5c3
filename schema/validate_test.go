package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestValidator(t *testing.T) {
	draft07 := `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object",
		"properties":{"a":{"type":"string"},"count":{"type":"integer","minimum":1},"mode":{"$ref":"#/definitions/mode"},
		"items":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string","pattern":"^[a-z]+$"}},"required":["id"]}}},
		"required":["a"],"additionalProperties":false,
		"definitions":{"mode":{"type":"string","enum":["fast","slow"]}}}`
	tests := []struct {
		name, schema, args string
		want               string // "" → valid
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
		{"fallback message", `{"type":"object","properties":{"a":{"type":"string","not":{"const":"x"}}}}`, `{"a":"x"}`, "arguments do not match the input schema: not: validated against", ""},
		{"invalid JSON", `{}`, `{`, "arguments are not valid JSON", ""},
		{"every problem at once", draft07, `{"count":0,"mode":"turbo","b":1,"items":[{"id":7}]}`,
			`missing required argument "a"; argument "count": 0 is less than the minimum 1; argument "mode": want one of ["fast","slow"], got "turbo"; unexpected argument "b" (allowed: a, count, mode, items); argument "items[0].id": want string, got integer`, "/a"},
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
			if len(ve.Message) < len(tt.want) || ve.Message[:len(tt.want)] != tt.want {
				t.Errorf("message %q, want %q", ve.Message, tt.want)
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
