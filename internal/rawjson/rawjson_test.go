package rawjson

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// Members gives each member as written, finding the end of any value.
func TestMembers(t *testing.T) {
	data := ` { "a" : "}\"]" , "b":[{"c":[1,{}]},"]"],"d":-1.5e3,"e":true ,"f":null,"g":{} } `
	var got []string
	if !Members([]byte(data), func(k, v []byte) bool {
		got = append(got, string(k)+"="+string(v))
		return true
	}) {
		t.Fatalf("%s: not read", data)
	}
	want := `a="}\"]" b=[{"c":[1,{}]},"]"] d=-1.5e3 e=true f=null g={}`
	if s := strings.Join(got, " "); s != want {
		t.Errorf("got  %s\nwant %s", s, want)
	}
	for _, data := range []string{`{}`, ` { } `} {
		if !Members([]byte(data), func(k, _ []byte) bool { t.Errorf("%s: member %s", data, k); return true }) {
			t.Errorf("%s: not read", data)
		}
	}
}

// Members refuses what is not an object, a name with an escape (which a
// decoder reads as another name), and stops where fn says.
func TestMembersRefuses(t *testing.T) {
	for _, data := range []string{`[]`, `"a"`, `null`, ``, `{"n\u0061me":1}`, "{\"\xff\":1}"} {
		if Members([]byte(data), func([]byte, []byte) bool { return true }) {
			t.Errorf("%s: read", data)
		}
	}
	n := 0
	if Members([]byte(`{"a":1,"b":2}`), func([]byte, []byte) bool { n++; return false }) || n != 1 {
		t.Errorf("fn said stop: read on (%d members)", n)
	}
}

// String reads a string as json.Unmarshal does, escapes and invalid UTF-8
// included.
func TestString(t *testing.T) {
	for _, v := range []string{`"plain"`, `"caf\u00e9 \"q\" \/"`, "\"\xff\"", `""`} {
		var want string
		if err := json.Unmarshal([]byte(v), &want); err != nil {
			t.Fatal(err)
		}
		if got, ok := String([]byte(v)); !ok || got != want {
			t.Errorf("%s: %q, %v; want %q", v, got, ok, want)
		}
	}
	for _, v := range []string{`1`, `null`, `{}`, `[]`} {
		if got, ok := String([]byte(v)); ok {
			t.Errorf("%s: %q, a string", v, got)
		}
	}
}

// Depth counts the nesting of objects and arrays, not brackets in strings.
func TestDepth(t *testing.T) {
	for data, want := range map[string]int{`1`: 0, `"[{"`: 0, `{}`: 1, `[1,[2]]`: 2, `{"a":[{"b":"]]]"}],"c":{}}`: 3, `[[`: 2} {
		if got := Depth([]byte(data)); got != want {
			t.Errorf("Depth(%s) = %d, want %d", data, got, want)
		}
	}
}

// Shape counts every value, keys aside, and nests as Depth does.
func TestShape(t *testing.T) {
	for data, want := range map[string][2]int{
		`1`: {0, 1}, `"a:"`: {0, 1}, ` {} `: {1, 1}, `[{},{},{}]`: {2, 4},
		`{"a":[true,null,-1.5e3],"b":{"c":"x"}}`: {2, 7}, `{"k" : "v"}`: {1, 2}, `[[`: {2, 2},
	} {
		if d, v := Shape([]byte(data)); d != want[0] || v != want[1] {
			t.Errorf("Shape(%s) = %d, %d; want %d, %d", data, d, v, want[0], want[1])
		}
	}
}

// Elements gives each element of an array as written, and refuses what is
// not one.
func TestElements(t *testing.T) {
	var got []string
	if !Elements([]byte(` [ 1, {"a":[2]} ,"]" ] `), func(v []byte) bool { got = append(got, string(v)); return true }) ||
		strings.Join(got, " ") != `1 {"a":[2]} "]"` {
		t.Errorf("elements %q", got)
	}
	for _, data := range []string{`{}`, `[1,`, `[1 2]`, `"[1]"`} {
		if Elements([]byte(data), func([]byte) bool { return true }) {
			t.Errorf("Elements(%s) took it", data)
		}
	}
}

// FloatsFit refuses a number a float64 cannot hold, wherever it is, and
// only that.
func TestFloatsFit(t *testing.T) {
	for data, want := range map[string]bool{`1`: true, `{"a":[-1.5e300,0,1e-400]}`: true, `"1e400"`: true, `1e400`: false, `{"a":[1,{"b":-1e309}]}`: false,
		"1" + strings.Repeat("0", 308): true, strings.Repeat("9", 309): false, "-0." + strings.Repeat("9", 400): true} {
		if got := FloatsFit([]byte(data)); got != want {
			t.Errorf("FloatsFit(%s) = %v, want %v", data, got, want)
		}
	}
}

// Members and String take anything, valid JSON or not, without a panic or
// reading past the end; what Members gives of a valid object is valid
// JSON, each value as encoding/json finds it; FloatsFit says whether
// encoding/json decodes valid JSON into an any.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[{"c":"}"}]}`, `[1e400,"1e400"]`, `{"`, `{"a"`, `{"a":`, `{"a":"`, `{"\"`, `{"a" 1}`, `{"a":[`, `{"a":1,}`, `"`, `"a`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		valid := json.Valid(data)
		var ordered []string
		ok := Members(data, func(k, v []byte) bool {
			if valid && !json.Valid(v) {
				t.Errorf("%q: member %q: %q is not valid JSON", data, k, v)
			}
			ordered = append(ordered, string(k))
			return true
		})
		if ok && valid {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(data, &m); err != nil {
				t.Errorf("%q read as an object: %v", data, err)
			}
			for _, k := range ordered {
				if _, found := m[k]; !found {
					t.Errorf("%q: member %q is not the object's", data, k)
				}
			}
		}
		var v any
		// encoding/json refuses nesting past 10000 for itself.
		if valid && Depth(data) <= 10000 && FloatsFit(data) != (json.Unmarshal(data, &v) == nil) {
			t.Errorf("FloatsFit(%q) = %v, but json.Unmarshal into an any: %v", data, FloatsFit(data), json.Unmarshal(data, &v))
		}
		if valid {
			if d, n := Shape(data); d != Depth(data) || n != values(data) {
				t.Errorf("Shape(%q) = %d, %d; want %d, %d", data, d, n, Depth(data), values(data))
			}
			Elements(data, func(e []byte) bool {
				if !json.Valid(e) {
					t.Errorf("%q: element %q is not valid JSON", data, e)
				}
				return true
			})
		}
		if s, ok := String(data); ok && valid {
			var want string
			if err := json.Unmarshal(data, &want); err != nil || s != want {
				t.Errorf("String(%q) = %q, want %q (%v)", data, s, want, err)
			}
		}
	})
}

// values is how many values the valid JSON data holds, as a decoder reads
// its tokens: a member's key is no value.
func values(data []byte) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var objects []bool // per open object or array: whether it is an object
	var key []bool     // per open one: whether a key comes next
	n := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return n
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			objects, key = objects[:len(objects)-1], key[:len(key)-1]
			continue
		}
		if len(objects) > 0 && objects[len(objects)-1] {
			if key[len(key)-1] = !key[len(key)-1]; !key[len(key)-1] {
				continue // the key itself
			}
		}
		n++
		if d, ok := tok.(json.Delim); ok {
			objects, key = append(objects, d == '{'), append(key, true)
		}
	}
}
