package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Each set is read from its project's own format; a set whose files are
// missing is said to be missing, not an error.
func TestLoadSets(t *testing.T) {
	dir := t.TempDir()
	if sets, missing, err := loadSets(dir); err != nil || len(sets) != 0 || !slices.Equal(missing, []string{"bfcl", "seal-tools", "metatool"}) {
		t.Fatalf("empty directory: %d sets, missing %v, %v", len(sets), missing, err)
	}
	write := func(name, data string) {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, cat := range []string{"simple_python", "multiple", "live_simple", "live_multiple"} {
		write("bfcl/BFCL_v4_"+cat+".json", `{"id": "`+cat+`_0", "question": [[{"role": "user", "content": "Area of a triangle?"}]], "function": [{"name": "triangle.area", "description": "Area of a triangle.", "parameters": {"type": "dict", "properties": {"base": {"type": "integer", "description": "The base."}}}}, {"name": "circle.area", "description": "Area of a circle."}]}`+"\n")
		write("bfcl/possible_answer/BFCL_v4_"+cat+".json", `{"id": "`+cat+`_0", "ground_truth": [{"triangle.area": {"base": [10]}}]}`+"\n")
	}
	write("seal-tools/tool.jsonl", `{"api_name": "getFilmDetails", "api_description": "Details of a film", "parameters": {"title": {"type": "str", "description": "The film's title"}}}`+"\n"+
		`{"api_name": "bookFlight", "api_description": "Book a flight", "parameters": {}}`+"\n")
	write("seal-tools/test_in_domain.jsonl", `{"id": "a", "query": "Tell me about the film Heat.", "calling": [{"api": "getFilmDetails"}]}`+"\n"+
		`{"id": "b", "query": "Two tools.", "calling": [{"api": "getFilmDetails"}, {"api": "bookFlight"}]}`+"\n")
	write("seal-tools/test_out_domain.jsonl", "\n")
	write("metatool/plugin_des.json", `{"WeatherTool": "Weather forecasts.", "NewsTool": "The news."}`)
	write("metatool/all_clean_data.csv", "Query,Tool\n\"Will it rain, tomorrow?\",WeatherTool\nWhat's new?,NewsTool\nUnknown,NoSuchTool\n")
	sets, missing, err := loadSets(dir)
	if err != nil || len(missing) != 0 || len(sets) != 3 {
		t.Fatalf("%d sets, missing %v, %v", len(sets), missing, err)
	}
	for i, want := range []struct{ tools, queries int }{{2, 4}, {2, 1}, {2, 2}} {
		if s := sets[i]; len(s.tools) != want.tools || len(s.queries) != want.queries {
			t.Errorf("%s: %d tools, %d queries, want %d and %d", s.name, len(s.tools), len(s.queries), want.tools, want.queries)
		}
	}
	if q := sets[2].queries[0]; q.text != "Will it rain, tomorrow?" || q.want != "WeatherTool" {
		t.Errorf("MetaTool's first query: %+v", q)
	}
	for _, s := range sets {
		for _, q := range s.queries {
			if r := (before{s.tools}).rank(q.text, q.want); r < 0 || r > len(s.tools) {
				t.Errorf("%s: rank %d", s.name, r)
			}
		}
	}
	quality(sets)
	timing(sets, []int{3})
	timing(nil, []int{5})
}
