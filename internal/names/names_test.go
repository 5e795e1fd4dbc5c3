package names_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/names"
	"github.com/mcpbridge/mcpbridge/tool"
)

func TestSuggest(t *testing.T) {
	tools := []string{"notes_add_note", "notes_list_notes", "search_web", "get_weather", "get_whether_ok"}
	for name, want := range map[string]string{
		"add_note":            "notes_add_note",   // prefix left out
		"notes-list-notes":    "notes_list_notes", // dashes
		"Search_Web":          "search_web",       // case
		"fs_search_web":       "search_web",       // a prefix too many
		"get_weathr":          "get_weather",      // a letter missing
		"delete_everything":   "",                 // nothing close
		"get_wether_ok":       "get_whether_ok",
		"":                    "",
		"notes_add_note_list": "",
	} {
		if got := names.Suggest(name, tools); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", name, got, want)
		}
	}
	// Two names equally close: no guess.
	if got := names.Suggest("get_a", []string{"get_b", "get_c"}); got != "" {
		t.Errorf("a tie gave %q", got)
	}
}

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"type", "type", 0},
		{"tpye", "type", 1}, // a transposition is one edit
		{"café", "cafe", 1}, // runes, not bytes
		{"kitten", "sitting", 3},
		{"", "abc", 3},
		{"ca", "abc", 3}, // optimal string alignment: no edit of a transposed pair
	} {
		if got := names.EditDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := names.EditDistance(tt.b, tt.a); got != tt.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tt.b, tt.a, got, tt.want)
		}
	}
}

// The name comes from a model: one too long to be a tool's is not compared,
// nor is a candidate that long.
func TestSuggestLongNames(t *testing.T) {
	long := strings.Repeat("a", 200)
	if got := names.Suggest(long, []string{long[1:]}); got != "" {
		t.Errorf("a %d-rune name gave %q", len(long), got)
	}
	if got := names.Suggest("aaaa", []string{long, "aaab"}); got != "aaab" {
		t.Errorf("got %q, want aaab", got)
	}
	if got := names.Suggest("get_wehater", []string{"get_weather", "get_whether"}); got != "get_weather" {
		t.Errorf("a transposition: got %q, want get_weather", got)
	}
}

// Proves the one alias rule: every split of an alias is a reading, and an
// alias names a tool only when exactly one reading is known.
func TestAlias(t *testing.T) {
	if got := (tool.Origin{Server: "kb", Tool: "search"}).Alias(); got != "mcp__kb__search" {
		t.Fatalf("Alias() = %q", got)
	}
	if got := (tool.Origin{Tool: "local"}).Alias(); got != "" {
		t.Fatalf("a local tool's alias: %q", got)
	}
	readings := names.Readings("mcp__a__b__c")
	want := []tool.Origin{{Server: "a", Tool: "b__c"}, {Server: "a__b", Tool: "c"}}
	if !slices.Equal(readings, want) {
		t.Fatalf("readings %v, want %v", readings, want)
	}
	o := tool.Origin{Server: "kb", Tool: "search"}
	if r := names.Readings(o.Alias()); !slices.Equal(r, []tool.Origin{o}) {
		t.Fatalf("the readings of %s: %v; want %v alone", o.Alias(), r, o)
	}
	if names.Readings("search") != nil || names.Readings("mcp____x") != nil {
		t.Fatal("a name that is no alias has readings")
	}
	known := map[tool.Origin]bool{{Server: "kb", Tool: "search"}: true}
	has := func(o tool.Origin) bool { return known[o] }
	if o, ok, amb := names.Resolve("mcp__kb__search", has); !ok || amb || o.Tool != "search" {
		t.Fatalf("known alias: %v %v %v", o, ok, amb)
	}
	if _, ok, amb := names.Resolve("mcp__kb__nothing", has); ok || amb {
		t.Fatal("an alias of no tool resolved")
	}
	known[tool.Origin{Server: "a", Tool: "b__c"}] = true
	known[tool.Origin{Server: "a__b", Tool: "c"}] = true
	if _, ok, amb := names.Resolve("mcp__a__b__c", has); ok || !amb {
		t.Fatal("an alias two tools could be read to name was resolved")
	}
}
