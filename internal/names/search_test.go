package names

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/tool"
)

func TestWords(t *testing.T) {
	for in, want := range map[string][]string{
		"list_files":                {"list", "files"},
		"listFiles":                 {"list", "files"},
		"list-files":                {"list", "files"},
		"files.list":                {"files", "list"},
		"HTTPServer":                {"http", "server"},
		"getURLsFor":                {"get", "urls", "for"},
		"parseJSON":                 {"parse", "json"},
		"utf8 s3 base64":            {"utf8", "s3", "base64"},
		"mcp__github__create_issue": {"mcp", "github", "create", "issue"},
		"Send a message, now!":      {"send", "a", "message", "now"},
		"Crème brûlée":              {"crème", "brûlée"},
		"获取天气预报":                    {"获", "取", "天", "气", "预", "报"},
		"abc天気x":                    {"abc", "天", "気", "x"},
		"":                          nil,
		"  --  ":                    nil,
	} {
		var got []string
		words(in, func(w string) { got = append(got, strings.ToLower(w)) })
		if !slices.Equal(got, want) {
			t.Errorf("words(%q) = %q, want %q", in, got, want)
		}
	}
}

// A description longer than maxText is read up to it: a hostile server's
// text costs the index a bounded amount.
func TestWordsBounded(t *testing.T) {
	n := 0
	words(strings.Repeat("word ", maxText), func(string) { n++ })
	if want := maxText / len("word "); n > want+1 {
		t.Fatalf("%d words read of a %d-byte text, want at most %d", n, 5*maxText, want+1)
	}
}

func TestStem(t *testing.T) {
	for w, want := range map[string]string{
		"Files": "file", "filing": "file", "searching": "search", "searches": "search",
		"the": "", "to": "", "and": "", "a": "", "utf8": "utf8",
	} {
		if got := stem(w); got != want {
			t.Errorf("stem(%q) = %q, want %q", w, got, want)
		}
	}
}

func names(defs []tool.Definition) []string {
	out := make([]string, len(defs))
	for i, d := range defs {
		out[i] = d.Name
	}
	return out
}

// Each case fails on the search this index replaced, which counted a word
// if it appeared anywhere inside a name or description, split the query
// on spaces only, and kept ties in the catalog's order.
func TestSearchRanks(t *testing.T) {
	schema := func(props string) json.RawMessage {
		return json.RawMessage(`{"type":"object","properties":{` + props + `}}`)
	}
	defs := []tool.Definition{
		{Name: "concatenate_strings", Description: "Join two strings into one and return it."},
		{Name: "locate_device", Description: "Find where a phone is on the map."},
		{Name: "cat_facts", Description: "Tell a random fact about cats."},
		{Name: "send_message", Description: "Send a chat message to a channel."},
		{Name: "search_notes", Description: "Search the notes by their text."},
		{Name: "forecast", Description: "The weather for the days to come.", InputSchema: schema(`"city":{"type":"string","description":"the city"}`)},
		{Name: "create_issue", Description: "Open a new issue.", Origin: tool.Origin{Server: "github", Tool: "create_issue"}},
		{Name: "create_ticket", Description: "Open a new ticket.", Origin: tool.Origin{Server: "jira", Tool: "create_ticket"}},
		{Name: "getWeatherNow", Description: "Current conditions."},
		{Name: "b_echo", Description: "Echo the text back.", Origin: tool.Origin{Server: "b"}},
		{Name: "a_echo", Description: "Echo the text back.", Origin: tool.Origin{Server: "a"}},
	}
	x := NewIndex(defs)
	for _, c := range []struct {
		query string
		want  []string // the first hits, in order
		not   []string // tools that must not match
	}{
		// Stop words match nothing: "a", "to", "the" are in most descriptions.
		{query: "send a message to the team", want: []string{"send_message"}, not: []string{"locate_device", "cat_facts", "forecast"}},
		// A word matches words, not pieces of them.
		{query: "cat", want: []string{"cat_facts"}, not: []string{"concatenate_strings", "locate_device"}},
		// Stemming: another form of the word.
		{query: "searching my note", want: []string{"search_notes"}},
		// The arguments say what a tool takes.
		{query: "for a city", want: []string{"forecast"}},
		// camelCase names split into words.
		{query: "weather now", want: []string{"getWeatherNow"}},
		// The server's name.
		{query: "create github", want: []string{"create_issue"}},
		// Ties go by name, whatever the catalog's order.
		{query: "echo", want: []string{"a_echo", "b_echo"}},
		{query: "echo text b", want: []string{"b_echo", "a_echo"}},
		// Punctuation is no part of a word.
		{query: "weather?", want: []string{"getWeatherNow", "forecast"}},
		{query: "the of and", want: nil},
	} {
		got, n := x.Search(c.query, 0, nil)
		if n != len(got) {
			t.Errorf("%q: %d matched, %d returned", c.query, n, len(got))
		}
		gotNames := names(got)
		if len(gotNames) < len(c.want) || !slices.Equal(gotNames[:len(c.want)], c.want) {
			t.Errorf("%q: %v, want it to start %v", c.query, gotNames, c.want)
		}
		if c.want == nil && len(got) != 0 {
			t.Errorf("%q: %v, want nothing", c.query, gotNames)
		}
		for _, no := range c.not {
			if slices.Contains(gotNames, no) {
				t.Errorf("%q: %v has %s", c.query, gotNames, no)
			}
		}
	}
}

// The name weighs more than the description, and a word the name and the
// description share more than the description alone.
func TestSearchNameFirst(t *testing.T) {
	x := NewIndex([]tool.Definition{
		{Name: "read_file", Description: "Read a file from the mail folder."},
		{Name: "mail_search", Description: "Search the mail."},
		{Name: "send_mail", Description: "Send a message."},
		{Name: "list_files", Description: "List the files."},
	})
	got, n := x.Search("MAIL search", 0, nil)
	if want := []string{"mail_search", "send_mail", "read_file"}; !slices.Equal(names(got), want) || n != 3 {
		t.Fatalf("Search = %v (%d), want %v", names(got), n, want)
	}
}

// limit cuts the answer but not the count; keep leaves tools out of both.
func TestSearchLimitAndKeep(t *testing.T) {
	var defs []tool.Definition
	for i := range 30 {
		defs = append(defs, tool.Definition{Name: fmt.Sprintf("note_%02d", i), Description: strings.Repeat("note ", i%5+1)})
	}
	x := NewIndex(defs)
	all, n := x.Search("notes", 0, nil)
	if n != 30 || len(all) != 30 {
		t.Fatalf("all: %d of %d", len(all), n)
	}
	top, n := x.Search("notes", 12, nil)
	if n != 30 || !slices.Equal(names(top), names(all[:12])) {
		t.Fatalf("top 12 of %d: %v, want %v", n, names(top), names(all[:12]))
	}
	even := func(d tool.Definition) bool { return (d.Name[len(d.Name)-1]-'0')%2 == 0 }
	kept, n := x.Search("notes", 5, even)
	if n != 15 || len(kept) != 5 {
		t.Fatalf("kept %d of %d, want 5 of 15", len(kept), n)
	}
	for _, d := range kept {
		if !even(d) {
			t.Fatalf("%s was to be left out", d.Name)
		}
	}
	if got, n := x.Search("weather", 12, nil); len(got) != 0 || n != 0 {
		t.Fatalf("a query no tool matches: %v", names(got))
	}
}

// Same tells a catalog the index was built from apart from any other.
func TestSame(t *testing.T) {
	defs := []tool.Definition{{Name: "a", Description: "x", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	x := NewIndex(defs)
	if !x.Same(slices.Clone(defs)) {
		t.Fatal("the same catalog is not Same")
	}
	for _, change := range []func(d *tool.Definition){
		func(d *tool.Definition) { d.Name = "b" },
		func(d *tool.Definition) { d.Description = "y" },
		func(d *tool.Definition) { d.Title = "T" },
		func(d *tool.Definition) { d.Annotations = &tool.Annotations{Title: "T"} },
		func(d *tool.Definition) { d.Origin.Server = "s" },
		func(d *tool.Definition) { d.InputSchema = json.RawMessage(`{"type":"object","properties":{}}`) },
	} {
		other := slices.Clone(defs)
		change(&other[0])
		if x.Same(other) {
			t.Errorf("%+v is Same as %+v", other[0], defs[0])
		}
	}
	if x.Same(nil) {
		t.Error("an empty catalog is Same")
	}
}

// Queries run concurrently on one index (run with -race).
func TestSearchConcurrent(t *testing.T) {
	x := NewIndex([]tool.Definition{{Name: "search_notes"}, {Name: "add_note"}})
	done := make(chan []string)
	for range 4 {
		go func() {
			got, _ := x.Search("notes searching", 0, nil)
			done <- names(got)
		}()
	}
	for range 4 {
		if got := <-done; !slices.Equal(got, []string{"search_notes", "add_note"}) {
			t.Errorf("concurrent search: %v", got)
		}
	}
}

// Whatever a server sends as a tool, indexing it and searching it neither
// fails nor finds what is not there, and a tool is found by a word of its
// name.
func FuzzIndex(f *testing.F) {
	f.Add("list_files", "List the files.", `{"type":"object","properties":{"path":{"description":"a \"dir\""}}}`, "files")
	f.Add("getURLsFor", "", `{"properties":[]}`, "url")
	f.Add("天気", "\u2028\xff", `{"properties":{"a":{"title":1}}`, "天")
	f.Fuzz(func(t *testing.T, name, description, schema, query string) {
		x := NewIndex([]tool.Definition{{Name: name, Description: description, InputSchema: json.RawMessage(schema)}})
		hits, n := x.Search(query, 12, nil)
		if n > 1 || len(hits) != n {
			t.Fatalf("%d hits, %d matched of one tool", len(hits), n)
		}
		findable := false
		words(name, func(w string) { findable = findable || stem(w) != "" })
		if hits, _ := x.Search(name, 12, nil); findable && len(hits) != 1 {
			t.Fatalf("%q not found by its name", name)
		}
	})
}
