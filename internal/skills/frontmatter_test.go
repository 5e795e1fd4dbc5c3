package skills

import (
	"reflect"
	"testing"
)

func TestSplitFrontmatter(t *testing.T) {
	cases := []struct {
		doc, front, body string
		ok               bool
	}{
		{"---\nname: a\n---\nbody\n", "name: a\n", "body\n", true},
		{"\uFEFF---\r\nname: a\r\n---  \r\nbody", "name: a\r\n", "body", true},
		{"---\nname: a\n---", "name: a\n", "", true},
		{"---\n---\nbody", "", "body", true},
		{"---\nname: a\n----\nno end\n", "", "", false},
		{"# title\n---\nname: a\n---\n", "", "", false},
		{" ---\nname: a\n---\n", "", "", false},
		{"---\nname: a\n", "", "", false},
	}
	for _, tc := range cases {
		front, body, ok := splitFrontmatter([]byte(tc.doc))
		if ok != tc.ok || string(front) != tc.front || string(body) != tc.body {
			t.Errorf("splitFrontmatter(%q) = %q, %q, %v; want %q, %q, %v", tc.doc, front, body, ok, tc.front, tc.body, tc.ok)
		}
	}
}

func TestParseFrontmatter(t *testing.T) {
	const doc = `name: pdf-processing
description: >-
  Extract, fill,
  and assemble PDF documents
license: 'Apache-2.0'
compatibility: "needs \"pdftk\""
metadata:
  version: 2.0
  released: 2026-01-02
  authors: [ada, "grace"]
  beta: true
  notes: |
    one
    two
  empty:
allowed-tools: Bash(git:*) Read
defaults: &d {retries: 3}
copy: *d
`
	got, err := parseFrontmatter([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"name":          "pdf-processing",
		"description":   "Extract, fill, and assemble PDF documents",
		"license":       "Apache-2.0",
		"compatibility": `needs "pdftk"`,
		"metadata": map[string]any{
			"version":  2.0,
			"released": "2026-01-02",
			"authors":  []any{"ada", "grace"},
			"beta":     true,
			"notes":    "one\ntwo\n",
			"empty":    nil,
		},
		"allowed-tools": "Bash(git:*) Read",
		"defaults":      map[string]any{"retries": 3.0},
		"copy":          map[string]any{"retries": 3.0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parsed\n%#v\nwant\n%#v", got, want)
	}

	for _, bad := range []string{
		"- a\n- b\n",         // not a mapping
		"name: a\nname: b\n", // a repeated key
		"[a]: b\n",           // a key that is not a scalar
		"n: .inf\n",          // no JSON for it
		"name: [unclosed\n",  // not YAML
		"a: &a [*a]\n",       // an alias to itself
	} {
		if m, err := parseFrontmatter([]byte(bad)); err == nil {
			t.Errorf("parseFrontmatter(%q) = %v, want an error", bad, m)
		}
	}
}

// Aliases cannot expand a few lines into a huge value.
func TestParseFrontmatterBounded(t *testing.T) {
	doc := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for _, k := range []string{"b", "c", "d", "e", "f"} {
		doc += k + ": &" + k + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
		prev = k
	}
	if _, err := parseFrontmatter([]byte(doc)); err == nil {
		t.Error("a billion laughs parsed")
	}
}

func TestCompareFrontmatter(t *testing.T) {
	listed := map[string]any{"name": "a", "description": "d", "metadata": map[string]any{"v": 1.0}, "gone": nil}
	same := map[string]any{"name": "a", "description": "d", "metadata": map[string]any{"v": 1.0}}
	if f, _, _ := compareFrontmatter(listed, same); f != "" {
		t.Errorf("equal frontmatter differs in %q", f)
	}
	cases := []struct {
		file             map[string]any
		field, want, got string
	}{
		{map[string]any{"name": "a", "description": "e", "metadata": map[string]any{"v": 1.0}}, "description", `"d"`, `"e"`},
		{map[string]any{"name": "a", "description": "d", "metadata": map[string]any{"v": 2.0}}, "metadata", `{"v":1}`, `{"v":2}`},
		{map[string]any{"name": "a", "description": "d"}, "metadata", `{"v":1}`, "null"},
		{map[string]any{"name": "a", "description": "d", "metadata": map[string]any{"v": 1.0}, "extra": "x"}, "extra", "null", `"x"`},
		{map[string]any{"name": "a", "description": "d", "metadata": map[string]any{"v": "1"}}, "metadata", `{"v":1}`, `{"v":"1"}`},
	}
	for _, tc := range cases {
		f, w, g := compareFrontmatter(listed, tc.file)
		if f != tc.field || w != tc.want || g != tc.got {
			t.Errorf("compare with %v = %q %s %s, want %q %s %s", tc.file, f, w, g, tc.field, tc.want, tc.got)
		}
	}
}
