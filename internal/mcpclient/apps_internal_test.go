package mcpclient

import (
	"encoding/json"
	"testing"

	"github.com/mcpbridge/mcpbridge/tool"
)

// A tool is kept from the model only when its app's visibility, a list,
// leaves out "model": whatever else a server puts there never hides a
// tool by mistake.
func TestForModel(t *testing.T) {
	for meta, want := range map[string]bool{
		``: true,
		`{"ui":{"resourceUri":"ui://board/view.html"}}`:                true,
		`{"ui":{"visibility":["app"]}}`:                                false,
		`{"ui":{"resourceUri":"ui://a","visibility":["model","app"]}}`: true,
		`{"ui":{"resourceUri":"ui://a","visibility":["model"]}}`:       true,
		`{"ui":{"visibility":[]}}`:                                     false,
		`{"ui":{"visibility":[1,"app",null]}}`:                         false,
		`{"ui":{"visibility":"app"}}`:                                  true,
		`{"ui":"ui://a"}`:                                              true,
	} {
		var d tool.Definition
		if meta != "" {
			if err := json.Unmarshal([]byte(meta), &d.Meta); err != nil {
				t.Fatal(err)
			}
		}
		if got := forModel(d.App()); got != want {
			t.Errorf("%s: forModel = %v, want %v", meta, got, want)
		}
	}
}
