package rawjson

import (
	"encoding/json"
	"strings"
	"testing"
)

// Valid agrees with json.Valid, and with Depth on how deep valid JSON
// nests; skipString with the plain loop it replaced.
func FuzzValid(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"b":[{"c":"}"}]}`, `[1e400,"1e400"]`, ` {} `, `[]`, `[[[]]]`, `{"a":{}}`, `""`, `"\u00e9\n"`,
		`"\u00zz"`, `"\x"`, "\"\x01\"", `"abcdefgh\"ijklmnop"`, `"abcdefghijklmnop\\"`, "\"\xff\xfe\"",
		`-0.5e+10`, `01`, `-`, `1.`, `1e`, `.5`, `truefalse`, `nul`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{1:2}`,
		`[1 2]`, `{"a":1}}`, `]`, `{"`, `"`, ``, ` `, `tru`, `[true,false,null]`, `{"a":[1,{"b":[2]}]}`,
	} {
		f.Add([]byte(s), 3)
	}
	f.Fuzz(func(t *testing.T, data []byte, maxDepth int) {
		maxDepth %= 8
		want := json.Valid(data)
		if got := Valid(data, -1); got != want {
			t.Fatalf("Valid(%q, -1) = %v, json.Valid %v", data, got, want)
		}
		if want := want && (maxDepth < 0 || Depth(data) <= maxDepth); Valid(data, maxDepth) != want {
			t.Fatalf("Valid(%q, %d) = %v, want %v (depth %d)", data, maxDepth, !want, want, Depth(data))
		}
		for i, c := range data {
			if c == '"' {
				if got, want := skipString(data, i), skipStringByByte(data, i); got != want {
					t.Fatalf("skipString(%q, %d) = %d, want %d", data, i, got, want)
				}
			}
		}
	})
}

// skipStringByByte is skipString as it was: a byte at a time.
func skipStringByByte(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

func TestValidDeep(t *testing.T) {
	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	if !Valid([]byte(deep), -1) || Valid([]byte(deep), 4999) || !Valid([]byte(deep), 5000) {
		t.Errorf("Valid of 5000 arrays in arrays: want valid at a bound of 5000 or none, not at 4999")
	}
	for _, n := range []int{10000, 10001} {
		deeper := []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
		if Valid(deeper, -1) != json.Valid(deeper) || Valid(deeper, 20000) != json.Valid(deeper) {
			t.Errorf("Valid of %d arrays in arrays: %v, json.Valid: %v", n, Valid(deeper, -1), json.Valid(deeper))
		}
	}
	if n := testing.AllocsPerRun(10, func() { Valid([]byte(`{"a":[1,{"b":"c"}]}`), 10) }); n != 0 {
		t.Errorf("Valid allocates %v times on a small message, want 0", n)
	}
}

func BenchmarkValid(b *testing.B) {
	for _, text := range []struct{ name, s string }{
		{"plain", strings.Repeat("x", 1<<20)},
		{"escaped", strings.Repeat("some text, \\\"quoted\\\" ", 1<<15)},
	} {
		b.Run(text.name, func(b *testing.B) {
			benchmarkValid(b, []byte(`{"content":[{"type":"text","text":"`+text.s+`"}],"isError":false}`))
		})
	}
}

func benchmarkValid(b *testing.B, data []byte) {
	for _, f := range []struct {
		name  string
		valid func([]byte) bool
	}{{"rawjson", func(d []byte) bool { return Valid(d, 1000) }}, {"encoding_json", json.Valid}} {
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if !f.valid(data) {
					b.Fatal("not valid")
				}
			}
		})
	}
}
