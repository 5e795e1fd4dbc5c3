package demo

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/skills"
)

// The demo's skill passes every check of the host-side skills client:
// listed, loaded, its reference file read, sizes and digests verified.
func TestWeeklyReviewSkill(t *testing.T) {
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := New().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	p := mcptool.FromTransport("demo", ct)
	if err := p.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if !skills.Declared(p.ServerExtensions()) {
		t.Fatalf("extensions %v: the Skills extension is not declared", p.ServerExtensions())
	}
	c := skills.New(p)
	list, err := c.List(ctx)
	if err != nil || len(list) != 1 || list[0].Name != "weekly-review" || len(list[0].Files) != 2 {
		t.Fatalf("List = %+v, %v", list, err)
	}
	loaded, err := c.Load(ctx, "weekly-review")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(loaded.Body(), "Call list_notes") || strings.Contains(loaded.Body(), "description:") {
		t.Errorf("body %q", loaded.Body())
	}
	tags, err := loaded.ReadFile(ctx, "references/TAGS.md")
	if err != nil || !strings.Contains(string(tags), "review:") {
		t.Errorf("TAGS.md: %q, %v", tags, err)
	}
}
