package tool_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/mcpbridge/mcpbridge/tool"
)

// A tool's app is read from its _meta as the MCP Apps extension writes it,
// the deprecated flat key included, and whatever a server puts there
// instead never makes a tool look like an app, nor hides it from the model
// by mistake.
func TestApp(t *testing.T) {
	for _, tc := range []struct {
		name, meta  string
		uri         string
		visibility  []string
		hasUI, main bool // main: offered to the model
	}{
		{"no meta", ``, "", nil, false, true},
		{"app", `{"ui":{"resourceUri":"ui://board/view.html"}}`, "ui://board/view.html", nil, true, true},
		{"legacy key", `{"ui/resourceUri":"ui://board/view.html"}`, "ui://board/view.html", nil, true, true},
		{"nested key wins", `{"ui":{"resourceUri":"ui://new"},"ui/resourceUri":"ui://old"}`, "ui://new", nil, true, true},
		{"not ui://", `{"ui":{"resourceUri":"https://example.com/app.html"}}`, "", nil, false, true},
		{"not a string", `{"ui":{"resourceUri":42}}`, "", nil, false, true},
		{"app only", `{"ui":{"visibility":["app"]}}`, "", []string{"app"}, false, false},
		{"both", `{"ui":{"resourceUri":"ui://a","visibility":["model","app"]}}`, "ui://a", []string{"model", "app"}, true, true},
		{"model only", `{"ui":{"resourceUri":"ui://a","visibility":["model"]}}`, "ui://a", []string{"model"}, true, true},
		{"nobody", `{"ui":{"visibility":[]}}`, "", []string{}, false, false},
		{"odd members", `{"ui":{"visibility":[1,"app",null]}}`, "", []string{"app"}, false, false},
		{"visibility not a list", `{"ui":{"visibility":"app"}}`, "", nil, false, true},
		{"ui not an object", `{"ui":"ui://a"}`, "", nil, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d tool.Definition
			if tc.meta != "" {
				if err := json.Unmarshal([]byte(tc.meta), &d.Meta); err != nil {
					t.Fatal(err)
				}
			}
			a := d.App()
			if a.ResourceURI != tc.uri || !slices.Equal(a.Visibility, tc.visibility) || (a.Visibility == nil) != (tc.visibility == nil) {
				t.Fatalf("App() = %+v, want URI %q, visibility %#v", a, tc.uri, tc.visibility)
			}
			if a.HasUI() != tc.hasUI || a.ForModel() != tc.main {
				t.Fatalf("HasUI %v, ForModel %v; want %v, %v", a.HasUI(), a.ForModel(), tc.hasUI, tc.main)
			}
		})
	}
}
