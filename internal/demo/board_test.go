package demo

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
)

// The notes board is an app as the host reads one: its tool offered with
// its interface, the interface read and checked, the app's own tool kept
// from the model and still served to the host.
func TestBoard(t *testing.T) {
	if appMIMEType != mcpclient.AppMIMEType {
		t.Fatalf("the demo's MIME type %q is not the host's %q", appMIMEType, mcpclient.AppMIMEType)
	}
	ctx := context.Background()
	p := mcpclient.FromServer("demo", New(), mcpclient.WithApps())
	if err := p.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if names := p.ToolNames(); !slices.Contains(names, "notes_board") || slices.Contains(names, "board_refresh") {
		t.Fatalf("offered %v", names)
	}
	var uri string
	for _, d := range p.Tools() {
		if d.Name == "notes_board" {
			uri = d.App().ResourceURI
		}
	}
	app, err := p.ReadApp(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	if app.HTML != boardHTML || app.PrefersBorder == nil || !*app.PrefersBorder || app.CSP.Policy() != (mcpclient.AppCSP{}).Policy() {
		t.Fatalf("app %s: border %v, policy %s", app.URI, app.PrefersBorder, app.CSP.Policy())
	}
	if _, err := p.CallToolResult(ctx, "add_note", map[string]any{"title": "milk", "body": "buy milk"}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"notes_board", "board_refresh"} {
		res, err := p.CallToolResult(ctx, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		if data, _ := json.Marshal(res.StructuredContent); mcpclient.ToReply(res).Text() != "#1 milk" || !strings.Contains(string(data), `"title":"milk"`) {
			t.Fatalf("%s: %+v, %v", name, res, err)
		}
	}
}
