package tool_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/mcpbridge/mcpbridge/tool"
)

// A tool's app is read from its _meta as the MCP Apps extension writes it,
// the deprecated flat key included, and whatever a server puts there
// instead never makes a tool look like an app, nor gives it a visibility
// it did not declare (mcptool's TestForModel: what keeps it from the model).
func TestApp(t *testing.T) {
	for _, tc := range []struct {
		name, meta string
		uri        string
		visibility []string
	}{
		{"no meta", ``, "", nil},
		{"app", `{"ui":{"resourceUri":"ui://board/view.html"}}`, "ui://board/view.html", nil},
		{"legacy key", `{"ui/resourceUri":"ui://board/view.html"}`, "ui://board/view.html", nil},
		{"nested key wins", `{"ui":{"resourceUri":"ui://new"},"ui/resourceUri":"ui://old"}`, "ui://new", nil},
		{"not ui://", `{"ui":{"resourceUri":"https://example.com/app.html"}}`, "", nil},
		{"not a string", `{"ui":{"resourceUri":42}}`, "", nil},
		{"app only", `{"ui":{"visibility":["app"]}}`, "", []string{"app"}},
		{"both", `{"ui":{"resourceUri":"ui://a","visibility":["model","app"]}}`, "ui://a", []string{"model", "app"}},
		{"model only", `{"ui":{"resourceUri":"ui://a","visibility":["model"]}}`, "ui://a", []string{"model"}},
		{"nobody", `{"ui":{"visibility":[]}}`, "", []string{}},
		{"odd members", `{"ui":{"visibility":[1,"app",null]}}`, "", []string{"app"}},
		{"visibility not a list", `{"ui":{"visibility":"app"}}`, "", nil},
		{"ui not an object", `{"ui":"ui://a"}`, "", nil},
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
		})
	}
}
