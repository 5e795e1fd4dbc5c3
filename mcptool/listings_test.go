package mcptool_test

import (
	"context"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/mcptool"
)

// What a server lists besides tools is listed whole, a null entry left
// out, and a null among a resource's contents too: no caller of the
// provider dereferences a server's null.
func TestNullItemsLeftOut(t *testing.T) {
	overEach(t, "null-items", func(t *testing.T, p *mcptool.Provider) {
		ctx := context.Background()
		var got []string
		rs, err := p.Resources(ctx)
		for _, r := range rs {
			got = append(got, "resource "+r.URI)
		}
		ts, err2 := p.ResourceTemplates(ctx)
		for _, r := range ts {
			got = append(got, "template "+r.URITemplate)
		}
		ps, err3 := p.Prompts(ctx)
		for _, pr := range ps {
			got = append(got, "prompt "+pr.Name)
		}
		got = append(got, p.ToolNames()...)
		if want := []string{"resource text://good", "template text://good/{id}", "prompt good", "echo"}; err != nil || err2 != nil || err3 != nil || !slices.Equal(got, want) {
			t.Errorf("listed %q (%v, %v, %v), want %q", got, err, err2, err3, want)
		}
		res, err := p.ReadResource(ctx, "text://good")
		if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != "good" {
			t.Fatalf("read: %+v, %v; want the good content alone", res, err)
		}
	})
}

// A server that declares neither resources nor prompts is not asked for
// them: the lists are empty, and nothing fails.
func TestListingsOfAServerWithoutThem(t *testing.T) {
	s := newServer("bare")
	addTool(s, "t", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return textResult("ok"), nil })
	p, _ := inProcess(t, s)
	ctx := context.Background()
	rs, err := p.Resources(ctx)
	ps, err2 := p.Prompts(ctx)
	if len(rs) != 0 || len(ps) != 0 || err != nil || err2 != nil {
		t.Fatalf("resources %v (%v), prompts %v (%v); want none, no error", rs, err, ps, err2)
	}
}
