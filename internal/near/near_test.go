package near_test

import (
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/near"
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
		if got := near.Suggest(name, tools); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", name, got, want)
		}
	}
	// Two names equally close: no guess.
	if got := near.Suggest("get_a", []string{"get_b", "get_c"}); got != "" {
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
		if got := near.EditDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := near.EditDistance(tt.b, tt.a); got != tt.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tt.b, tt.a, got, tt.want)
		}
	}
}

// The name comes from a model: one too long to be a tool's is not compared,
// nor is a candidate that long.
func TestSuggestLongNames(t *testing.T) {
	long := strings.Repeat("a", 200)
	if got := near.Suggest(long, []string{long[1:]}); got != "" {
		t.Errorf("a %d-rune name gave %q", len(long), got)
	}
	if got := near.Suggest("aaaa", []string{long, "aaab"}); got != "aaab" {
		t.Errorf("got %q, want aaab", got)
	}
	if got := near.Suggest("get_wehater", []string{"get_weather", "get_whether"}); got != "get_weather" {
		t.Errorf("a transposition: got %q, want get_weather", got)
	}
}
