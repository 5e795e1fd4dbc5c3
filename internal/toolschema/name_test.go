package toolschema

import (
	"strings"
	"testing"
)

func TestCheckName(t *testing.T) {
	tests := []struct {
		vendor Vendor
		name   string
		ok     bool
		rule   string // part of the error
	}{
		{OpenAI, "get_weather-v2", true, ""},
		{OpenAI, strings.Repeat("a", 64), true, ""},
		{OpenAI, strings.Repeat("a", 65), false, "more than 64"},
		{OpenAI, "kb.search", false, `'.'`},
		{OpenAI, "kb:search", false, `':'`},
		{OpenAI, "1tool", true, ""},
		{OpenAI, "", false, "empty"},
		{OpenAI, "héllo", false, "not allowed"},
		{Anthropic, strings.Repeat("a", 128), true, ""},
		{Anthropic, strings.Repeat("a", 129), false, "more than 128"},
		{Anthropic, "kb.search", false, `'.'`},
		{Anthropic, "kb search", false, `' '`},
		{Gemini, "kb.search:v1-x", true, ""},
		{Gemini, "_private", true, ""},
		{Gemini, strings.Repeat("a", 64), true, ""},
		{Gemini, strings.Repeat("a", 65), false, "more than 64"},
		{Gemini, "1tool", false, "must start with a letter"},
		{Gemini, "-tool", false, "must start with a letter"},
		{Gemini, "kb/search", false, `'/'`},
	}
	for _, tt := range tests {
		err := CheckName(tt.vendor, tt.name)
		if (err == nil) != tt.ok {
			t.Errorf("CheckName(%s, %q) = %v, want ok=%v", tt.vendor, tt.name, err, tt.ok)
			continue
		}
		if err != nil && !strings.Contains(err.Error(), tt.rule) {
			t.Errorf("CheckName(%s, %q) = %v, want it to mention %q", tt.vendor, tt.name, err, tt.rule)
		}
	}
	if err := CheckName("nope", "x"); err == nil {
		t.Error("unknown vendor: no error")
	}
}

func TestNamer(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct {
		vendor             Vendor
		server, tool, want string
		final              string // "" → only checked valid
		hashed             bool
	}{
		{OpenAI, "kb", "search", "kb_search", "kb_search", false},
		{OpenAI, "kb", "search.docs", "kb_search.docs", "kb_search_docs", false},
		{Gemini, "kb", "search.docs", "kb_search.docs", "kb_search.docs", false},
		{Gemini, "9x", "t", "9x_t", "_9x_t", false},
		{OpenAI, "fs", "lire-le-fichier-élevé", "", "lire-le-fichier-eleve", false},
		{OpenAI, "s", long, "", "", true},
		{Anthropic, "s", long, "", long, false},
		{Anthropic, "s", long + long, "", "", true},
	}
	for _, tt := range tests {
		n := NewNamer(tt.vendor)
		got, err := n.Add(tt.server, tt.tool, tt.want)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckName(tt.vendor, got); err != nil {
			t.Errorf("%s %q: %v", tt.vendor, got, err)
		}
		if tt.final != "" && got != tt.final {
			t.Errorf("%s Add(%q, %q, %q) = %q, want %q", tt.vendor, tt.server, tt.tool, tt.want, got, tt.final)
		}
		if tt.hashed && !strings.Contains(got, "_") {
			t.Errorf("%q: want a hash suffix", got)
		}
		s, tl, ok := n.Lookup(got)
		if !ok || s != tt.server || tl != tt.tool {
			t.Errorf("Lookup(%q) = %q, %q, %v", got, s, tl, ok)
		}
	}
}

func TestNamerCollisions(t *testing.T) {
	n := NewNamer(OpenAI)
	a, _ := n.Add("a", "x.y", "x.y")
	b, _ := n.Add("b", "x_y", "x_y")
	c, _ := n.Add("c", "x y", "x y")
	if a != "x_y" || b == a || c == a || c == b {
		t.Fatalf("names %q %q %q: want first plain, others distinct", a, b, c)
	}
	for _, name := range []string{b, c} {
		if len(name) != len("x_y")+1+hashLen {
			t.Errorf("%q: want x_y plus a %d-digit hash", name, hashLen)
		}
	}
	// The same pair keeps its name; the hash depends on the pair, not on order.
	if again, _ := n.Add("b", "x_y", "other"); again != b {
		t.Errorf("re-Add = %q, want %q", again, b)
	}
	m := NewNamer(OpenAI)
	m.Add("z", "x_y", "x_y")
	if b2, _ := m.Add("b", "x_y", "x_y"); b2 != b {
		t.Errorf("hash suffix depends on order: %q vs %q", b2, b)
	}
	// Two long names sharing a prefix stay distinct and under the limit.
	p := strings.Repeat("p", 80)
	l1, _ := n.Add("s", p+"1", "")
	l2, _ := n.Add("s", p+"2", "")
	if l1 == l2 || len(l1) > 64 || len(l2) > 64 {
		t.Errorf("long names %q, %q", l1, l2)
	}
}

// Proves that a name in a script no vendor allows stays readable where it
// can and distinct where it cannot: diacritics are dropped, other letters
// leave a hash of the name behind (never a row of underscores two names
// share), and an error names the real character.
func TestNamerNonLatin(t *testing.T) {
	n := NewNamer(Gemini)
	seen := map[string]string{}
	for _, name := range []string{"日本語", "中文", "кот", "get_天気", "get_天候", "Ελληνικά"} {
		got, err := n.Add("s", name, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckName(Gemini, got); err != nil {
			t.Errorf("%q became %q: %v", name, got, err)
		}
		if strings.Contains(got, "__") {
			t.Errorf("%q became %q: a row of underscores", name, got)
		}
		if other, dup := seen[got]; dup {
			t.Errorf("%q and %q both became %q", name, other, got)
		}
		seen[got] = name
	}
	if got, _ := n.Add("s", "get_天気", ""); !strings.HasPrefix(got, "get_") || len(got) != len("get_")+hashLen {
		t.Errorf("get_天気 became %q, want get_ and a hash", got)
	}
	err := CheckName(OpenAI, "日本語")
	if err == nil || !strings.Contains(err.Error(), "'日' (U+65E5)") {
		t.Fatalf("CheckName: %v; want the character named", err)
	}
}
