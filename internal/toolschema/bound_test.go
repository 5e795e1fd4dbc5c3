package toolschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// unboundedSchemas are schemas no validation could finish on, each with the
// pointer of the reference that closes the cycle.
var unboundedSchemas = []struct{ name, schema, ptr string }{
	{"ref to the root", `{"type":"object","$ref":"#"}`, "/$ref"},
	{"$defs cycle", `{"type":"object","$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}}}`, "/$defs/b/$ref"},
	{"allOf", `{"type":"object","properties":{"a":{"type":"string"}},"allOf":[{"$ref":"#"}]}`, "/allOf/0/$ref"},
	{"anyOf", `{"anyOf":[{"type":"string"},{"$ref":"#"}]}`, "/anyOf/1/$ref"},
	{"oneOf", `{"oneOf":[{"$ref":"#"}]}`, "/oneOf/0/$ref"},
	{"not", `{"not":{"$ref":"#"}}`, "/not/$ref"},
	{"if", `{"if":{"$ref":"#"},"then":{"type":"object"}}`, "/if/$ref"},
	{"dependentSchemas", `{"type":"object","dependentSchemas":{"a":{"$ref":"#"}}}`, "/dependentSchemas/a/$ref"},
	{"$dynamicRef", `{"$id":"https://example.com/t","$dynamicAnchor":"node","type":"object","allOf":[{"$dynamicRef":"#node"}]}`, "/allOf/0/$dynamicRef"},
	{"$anchor", `{"$anchor":"me","allOf":[{"$ref":"#me"}]}`, "/allOf/0/$ref"},
	{"percent-encoded pointer", `{"$ref":"#/$defs/a%20b","$defs":{"a b":{"allOf":[{"$ref":"#/$defs/a%20b"}]}}}`, "/$defs/a b/allOf/0/$ref"},
	{"$id of a subschema", `{"$id":"https://example.com/r","properties":{"x":{"$id":"https://example.com/x","allOf":[{"$ref":"https://example.com/x"}]}}}`, "/properties/x/allOf/0/$ref"},
	{"draft-07 below a property", `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"p":{"$ref":"#/definitions/a"}},"definitions":{"a":{"$ref":"#/definitions/a"}}}`, "/definitions/a/$ref"},
}

// Proves that a schema whose references loop without descending into the
// value (which made jsonschema-go overflow the stack, a fatal error) is
// refused with the pointer of the loop by lowering for every vendor, by
// Lint, and by Compile, before any validation runs.
func TestUnboundedSchemaRefused(t *testing.T) {
	for _, tt := range unboundedSchemas {
		t.Run(tt.name, func(t *testing.T) {
			for _, v := range []Vendor{OpenAI, Anthropic, Gemini} {
				low, err := Lower(v, json.RawMessage(tt.schema))
				var le *LowerError
				if !errors.As(err, &le) {
					t.Fatalf("Lower(%s) = %s, %v; want a *LowerError", v, low.Schema, err)
				}
				if le.Pointer != tt.ptr || !strings.Contains(le.Message, "cycle") {
					t.Errorf("Lower(%s): %v; want the cycle at %s", v, err, tt.ptr)
				}
				if !hasDiag(Lint(v, "t", json.RawMessage(tt.schema)), tt.ptr, le.Keyword) {
					t.Errorf("Lint(%s) does not report %s", v, tt.ptr)
				}
			}
			_, err := Compile(json.RawMessage(tt.schema))
			var ue *UnboundedError
			if !errors.As(err, &ue) || ue.Pointer != tt.ptr {
				t.Fatalf("Compile: %v; want an *UnboundedError at %s", err, tt.ptr)
			}
		})
	}
}

// Proves that definitions applying the next one twice, in place, are
// refused before validation: 2^20 subschemas for any value.
func TestExponentialInPlaceRefused(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"object","$ref":"#/$defs/d0","$defs":{`)
	for i := range 20 {
		fmt.Fprintf(&b, `"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]},`, i, i+1, i+1)
	}
	b.WriteString(`"d20":{"type":"object"}}}`)
	s := json.RawMessage(b.String())
	for _, v := range []Vendor{OpenAI, Anthropic} {
		if _, err := Lower(v, s); err == nil || !strings.Contains(err.Error(), "subschemas to one value") {
			t.Errorf("Lower(%s): %v; want too many subschemas", v, err)
		}
	}
	var ue *UnboundedError
	if _, err := Compile(s); !errors.As(err, &ue) || !strings.HasPrefix(ue.Pointer, "/$defs/d") {
		t.Errorf("Compile: %v; want an *UnboundedError in $defs", err)
	}
}

// Proves that a recursive schema that descends into the value (a tree)
// keeps working: it lowers where it did, and validation terminates on a
// deep value, valid or not.
func TestRecursiveSchemaValidates(t *testing.T) {
	for _, s := range []string{
		`{"type":"object","properties":{"tree":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}`,
		`{"$id":"https://example.com/t","$dynamicAnchor":"node","type":"object","properties":{"tree":{"$ref":"#"},"name":{"type":"string"},"kids":{"type":"array","items":{"$dynamicRef":"#node"}}}}`,
	} {
		for _, v := range []Vendor{OpenAI, Anthropic} {
			if _, err := Lower(v, json.RawMessage(s)); err != nil {
				t.Errorf("Lower(%s): %v", v, err)
			}
		}
		if _, err := Lower(Gemini, json.RawMessage(s)); err == nil || !strings.Contains(err.Error(), "recursi") {
			t.Errorf("Lower(gemini): %v; want recursion refused, as Gemini cannot express it", err)
		}
		val, err := Compile(json.RawMessage(s))
		if err != nil {
			t.Fatalf("Compile(%s): %v", s, err)
		}
		deep := `{"name":"leaf"}`
		for range 60 {
			deep = `{"name":"n","kids":[` + deep + `]}`
		}
		if err := val.Validate(json.RawMessage(`{"tree":` + deep + `}`)); err != nil {
			t.Errorf("deep valid tree: %v", err)
		}
		bad := strings.Replace(deep, `"leaf"`, `7`, 1)
		if err := val.Validate(json.RawMessage(`{"tree":` + bad + `}`)); err == nil {
			t.Error("deep invalid tree accepted")
		}
	}
}

// Proves that a schema which multiplies its work at every level of a value
// (30 definitions applied in place, each applying the first again to the
// value's part "x": 30^depth visits) is refused for a deep value with
// ErrTooComplex, instead of running for hours, and still validates a
// shallow one.
func TestValidationWorkBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"$ref":"#/$defs/a0","$defs":{`)
	for i := range 30 {
		next := ""
		if i < 29 {
			next = fmt.Sprintf(`"$ref":"#/$defs/a%d",`, i+1)
		}
		fmt.Fprintf(&b, `"a%d":{%s"type":"object","properties":{"x":{"$ref":"#/$defs/a0"}}},`, i, next)
	}
	b.WriteString(`"end":{}}}`)
	val, err := Compile(json.RawMessage(b.String()))
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	if err := val.Validate(json.RawMessage(`{"x":{"x":{}}}`)); err != nil {
		t.Errorf("shallow value: %v", err)
	}
	deep := strings.Repeat(`{"x":`, 12) + `{}` + strings.Repeat(`}`, 12)
	err = val.Validate(json.RawMessage(deep))
	var ve *ValidationError
	if !errors.As(err, &ve) || !errors.Is(err, ErrTooComplex) || !strings.Contains(ve.Message, "cannot be checked") {
		t.Errorf("Validate(deep) = %v; want a ValidationError for ErrTooComplex", err)
	}
	if err := val.ValidateValue(json.RawMessage(deep)); !errors.Is(err, ErrTooComplex) {
		t.Errorf("ValidateValue(deep) = %v; want ErrTooComplex", err)
	}
}

// Proves that validation's memory is bounded by the value's size: 300 anyOf
// branches refusing a 1 MiB string would each write it into a message
// (300 MiB); the validation is refused before it starts.
func TestValidationMessagesBounded(t *testing.T) {
	branches := strings.TrimSuffix(strings.Repeat(`{"type":"integer"},`, 300), ",")
	val, err := Compile(json.RawMessage(`{"type":"object","properties":{"s":{"anyOf":[` + branches + `]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	args := json.RawMessage(`{"s":"` + strings.Repeat("a", 1<<20) + `"}`)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err = val.Validate(args)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTooComplex) {
		t.Errorf("Validate = %.200v; want ErrTooComplex", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
		t.Errorf("validation allocated %d MiB for a 1 MiB value", alloc>>20)
	}
	var ve *ValidationError
	if errors.As(err, &ve) && len(ve.Message) > 1000 {
		t.Errorf("message of %d bytes", len(ve.Message))
	}
}

// Proves that a large value a schema merely describes is validated, unions
// included: the bounds grow with the value.
func TestLargeValueValidates(t *testing.T) {
	val, err := Compile(json.RawMessage(`{"type":"object","properties":{"items":{"type":"array","items":{"$ref":"#/$defs/item"}}},
		"$defs":{"item":{"anyOf":[
			{"type":"object","properties":{"kind":{"const":"a"},"n":{"type":"integer"}},"required":["kind"]},
			{"type":"object","properties":{"kind":{"const":"b"},"s":{"type":"string","maxLength":20}},"required":["kind"]},
			{"type":"object","properties":{"kind":{"const":"c"},"tags":{"type":"array","items":{"type":"string"}}},"required":["kind"]},
			{"type":"object","properties":{"kind":{"const":"d"}},"required":["kind"]}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var items []string
	for i := range 20000 {
		items = append(items, []string{`{"kind":"a","n":1}`, `{"kind":"b","s":"some text"}`, `{"kind":"c","tags":["x","y","z"]}`, `{"kind":"d"}`}[i%4])
	}
	value := json.RawMessage(`{"items":[` + strings.Join(items, ",") + `]}`)
	if err := val.ValidateValue(value); err != nil {
		t.Errorf("large value: %.300v", err)
	}
}

// Proves that a refusal quotes a long value in part, not whole.
func TestValidationMessageCut(t *testing.T) {
	val, err := Compile(json.RawMessage(`{"type":"object","properties":{"mode":{"enum":["fast","slow"]},"id":{"type":"string","pattern":"^[a-z]+$"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("Z", 100000)
	err = val.Validate(json.RawMessage(`{"mode":"` + long + `","id":"` + long + `"}`))
	if err == nil || len(err.Error()) > 1000 || !strings.Contains(err.Error(), `argument "mode": want one of ["fast","slow"], got "ZZZ`) {
		t.Errorf("message (%d bytes): %.300v", len(fmt.Sprint(err)), err)
	}
	// A string one byte short of the bound, past it with its quotes (here
	// 199 bytes once its invalid UTF-8 is decoded as U+FFFD), is quoted.
	bad := `"0` + strings.Repeat("\xd8", 66) + `"`
	err = val.Validate(json.RawMessage(`{"mode":` + bad + `}`))
	if err == nil || len(err.Error()) > 1000 || !strings.Contains(err.Error(), `argument "mode": want one of`) {
		t.Errorf("message (%d bytes): %.300v", len(fmt.Sprint(err)), err)
	}
}

// Proves that inlining for Gemini is bounded in bytes, not only in
// subschemas: a 20 KB description reached through 3600 references would
// lower to 72 MB.
func TestLowerGeminiInlinedSize(t *testing.T) {
	var p, q []string
	for i := range 60 {
		p = append(p, fmt.Sprintf(`"p%d":{"$ref":"#/$defs/a"}`, i))
		q = append(q, fmt.Sprintf(`"q%d":{"$ref":"#/$defs/x"}`, i))
	}
	s := `{"type":"object","properties":{` + strings.Join(p, ",") + `},"$defs":{
		"a":{"type":"object","properties":{` + strings.Join(q, ",") + `}},
		"x":{"type":"string","description":"` + strings.Repeat("d", 20000) + `"}}}`
	low, err := Lower(Gemini, json.RawMessage(s))
	if err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("Lower(gemini) = %d bytes, %v; want too large", len(low.Schema), err)
	}
}

// Guards the keyword table against jsonschema-go: every field of its Schema
// that holds subschemas must be a keyword the check follows, or a schema
// could apply a subschema the check never saw.
func TestKeywordsCoverJSONSchemaGo(t *testing.T) {
	untagged := map[string]string{"Items": "items", "ItemsArray": "items", "DependencySchemas": "dependencies"}
	st := reflect.TypeFor[jsonschema.Schema]()
	for i := range st.NumField() {
		f := st.Field(i)
		switch f.Type {
		case reflect.TypeFor[*jsonschema.Schema](), reflect.TypeFor[[]*jsonschema.Schema](), reflect.TypeFor[map[string]*jsonschema.Schema]():
		default:
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || name == "" {
			name = untagged[f.Name]
		}
		if _, ok := keywords[name]; !ok {
			t.Errorf("jsonschema.Schema.%s (%q) holds subschemas the check does not follow", f.Name, name)
		}
	}
}

// Proves that keys differing from a keyword only in case are not keywords
// (JSON Schema is case-sensitive), though jsonschema-go's decoding would read
// "$Ref" as $ref: the loop below is ignored, not followed for ever.
func TestCaseFoldedKeywordsIgnored(t *testing.T) {
	val, err := Compile(json.RawMessage(`{"AllOf":[{"$Ref":"#"}],"TYPE":"string","type":"object"}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := val.Validate(json.RawMessage(`{"a":1}`)); err != nil {
		t.Errorf("Validate: %v", err)
	}
	if err := val.Validate(json.RawMessage(`"s"`)); err == nil {
		t.Error(`"TYPE" overrode "type"`)
	}
}

// Proves that the check itself is bounded: with 3000 subschemas that each
// have an $id, every reference may resolve in 3000 places, and the check
// gives up, refusing the schema, rather than try them all.
func TestCheckBounded(t *testing.T) {
	var props []string
	for i := range 3000 {
		props = append(props, fmt.Sprintf(`"p%d":{"$id":"https://example.com/%d","properties":{"x":{"$ref":"#/properties/x"}}}`, i, i))
	}
	_, err := Compile(json.RawMessage(`{"properties":{` + strings.Join(props, ",") + `}}`))
	var ue *UnboundedError
	if !errors.As(err, &ue) || !strings.Contains(ue.Message, "too many references") {
		t.Fatalf("Compile: %.300v; want too many references to check", err)
	}
}

// A reference to a place that is no schema (an array, a number) is refused
// as jsonschema-go refuses it, never a panic of the check before it.
func TestRefToNoSchemaRefused(t *testing.T) {
	for _, s := range []string{
		`{"anyOf":[],"$ref":"#/anyOf"}`,
		`{"enum":[1,2],"$ref":"#/enum"}`,
		`{"maxLength":3,"$ref":"#/maxLength"}`,
	} {
		if _, err := Compile(json.RawMessage(s)); err == nil {
			t.Errorf("%s compiled", s)
		}
	}
}
