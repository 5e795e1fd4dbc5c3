package form_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/form"
)

// everyKind is a requested schema with every kind of field the
// specification allows, as server-everything's trigger-elicitation-request
// asks for them.
const everyKind = `{"type": "object", "properties": {
	"name": {"type": "string", "title": "Name", "minLength": 2},
	"check": {"type": "boolean"},
	"email": {"type": "string", "format": "email"},
	"homepage": {"type": "string", "format": "uri"},
	"birthdate": {"type": "string", "format": "date"},
	"integer": {"type": "integer", "minimum": 1, "maximum": 100, "default": 42},
	"number": {"type": "number", "default": 3.14},
	"friend": {"type": "string", "enum": ["Monica", "Rachel"], "default": "Monica"},
	"instruments": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "string", "enum": ["Guitar", "Piano", "Drums"]}, "default": ["Guitar"]},
	"hero": {"type": "string", "oneOf": [{"const": "hero-1", "title": "Superman"}, {"const": "hero-2", "title": "Wonder Woman"}]},
	"fish": {"type": "array", "items": {"anyOf": [{"const": "fish-1", "title": "Tuna"}, {"const": "fish-2", "title": "Salmon"}]}},
	"pet": {"type": "string", "enum": ["pet-1", "pet-2"], "enumNames": ["Cats", "Dogs"]}
}, "required": ["name"]}`

func TestParse(t *testing.T) {
	f, err := form.Parse(json.RawMessage(everyKind))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, fd := range f.Fields {
		got = append(got, fd.Name+":"+string(fd.Kind))
	}
	want := "name:string check:boolean email:string homepage:string birthdate:string integer:integer number:number friend:select " +
		"instruments:multiselect hero:select fish:multiselect pet:select"
	if strings.Join(got, " ") != want {
		t.Fatalf("fields in order:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	byName := map[string]form.Field{}
	for _, fd := range f.Fields {
		byName[fd.Name] = fd
	}
	if !byName["name"].Required || byName["check"].Required {
		t.Error("required is name alone")
	}
	if d := byName["integer"].Default; d != int64(42) {
		t.Errorf("integer default %#v", d)
	}
	if d := byName["instruments"].Default; !reflect.DeepEqual(d, []string{"Guitar"}) {
		t.Errorf("instruments default %#v", d)
	}
	if c := byName["hero"].Choices; len(c) != 2 || c[1] != (form.Choice{Value: "hero-2", Title: "Wonder Woman"}) {
		t.Errorf("hero choices %v", c)
	}
	if c := byName["pet"].Choices; c[0] != (form.Choice{Value: "pet-1", Title: "Cats"}) {
		t.Errorf("legacy enumNames: %v", c)
	}
}

// What is outside the specification's subset is refused, naming the
// property.
func TestParseRefuses(t *testing.T) {
	for schema, want := range map[string]string{
		`{"type": "array"}`: "want object",
		`{"properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}}}}}`: `property "a": a nested object`,
		`{"properties": {"a": {"type": "array", "items": {"type": "object"}}}}`:              `property "a": an array whose items`,
		`{"properties": {"a": {"type": "string", "format": "ipv4"}}}`:                        `format "ipv4"`,
		`{"properties": {"a": {"type": "integer", "default": "x"}}}`:                         `property "a": default: want a number`,
		`{"properties": {"a": {"type": "string", "enum": ["x"], "enumNames": []}}}`:          "enumNames",
		`{"properties": {"a": {"type": "null"}}}`:                                            `type "null"`,
		`{"properties": {}, "required": ["ghost"]}`:                                          `"ghost" is not defined`,
	} {
		if _, err := form.Parse(json.RawMessage(schema)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", schema, err, want)
		}
	}
}

func TestFormCheck(t *testing.T) {
	f, _ := form.Parse(json.RawMessage(everyKind))
	ok := map[string]any{"name": "Ada", "integer": 7.0, "email": "ada@example.com", "instruments": []any{"Piano"}, "hero": "hero-2", "birthdate": "1815-12-10"}
	if err := f.Check(ok); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		content map[string]any
		want    string
	}{
		{map[string]any{}, `field "name": required`},
		{map[string]any{"name": "A"}, `field "name": 1 characters (want at least 2)`},
		{map[string]any{"name": "Ada", "extra": 1}, `field "extra": not in the form`},
		{map[string]any{"name": "Ada", "integer": 7.5}, "not a whole number"},
		{map[string]any{"name": "Ada", "integer": 101}, "out of range (want 1 to 100)"},
		{map[string]any{"name": "Ada", "email": "nope"}, "not a valid email"},
		{map[string]any{"name": "Ada", "homepage": "/relative"}, "not a valid uri"},
		{map[string]any{"name": "Ada", "friend": "Joey"}, `"Joey" is not one of the options`},
		{map[string]any{"name": "Ada", "instruments": []string{}}, "0 picked (want 1 to 2)"},
		{map[string]any{"name": "Ada", "check": "yes"}, "want true or false"},
	} {
		if err := f.Check(bad.content); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%v: %v, want %q", bad.content, err, bad.want)
		}
	}
}

// What a person types becomes the field's value: options by value, title
// or number.
func TestFieldParse(t *testing.T) {
	f, _ := form.Parse(json.RawMessage(everyKind))
	field := func(name string) form.Field {
		for _, fd := range f.Fields {
			if fd.Name == name {
				return fd
			}
		}
		t.Fatalf("no field %s", name)
		return form.Field{}
	}
	for _, c := range []struct {
		field, text string
		want        any
	}{
		{"integer", " 12 ", int64(12)},
		{"number", "2.5", 2.5},
		{"check", "Y", true},
		{"hero", "wonder woman", "hero-2"},
		{"hero", "1", "hero-1"},
		{"fish", "2, Tuna", []string{"fish-2", "fish-1"}},
		{"name", "Ada", "Ada"},
	} {
		got, err := field(c.field).Parse(c.text)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %q: %#v, %v; want %#v", c.field, c.text, got, err, c.want)
		}
	}
	for _, c := range []struct{ field, text, want string }{
		{"integer", "twelve", "not a number"},
		{"check", "maybe", "answer yes or no"},
		{"hero", "Batman", "not one of the options"},
	} {
		if _, err := field(c.field).Parse(c.text); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: %v, want %q", c.field, c.text, err, c.want)
		}
	}
}
