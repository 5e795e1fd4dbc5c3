package schema

import (
	"encoding/json"
	"errors"
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
