package mcpclient_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
)

// A listing is bounded in all, not only page by page: vast-listing's
// hundred legal pages of 10 000 tools are refused at the second page, before
// it is kept, naming the server and the bound; its resources alike, under a
// bound of the caller's; and the bytes of a listing as they are.
func TestListingBoundedInAll(t *testing.T) {
	var pe *mcpclient.ProtocolError
	_, s, err := pipeProvider(t, "vast-listing")
	if !errors.As(err, &pe) || pe.Server != "piped" || !strings.Contains(err.Error(), "tools/list: page 2 takes the listing past 10000 entries in all") {
		t.Fatalf("a million tools: %v", err)
	}
	if n := s.Count("tools/list"); n != 2 {
		t.Errorf("%d pages of tools read, want 2 (%d pages of %d tools offered)", n, hostile.VastPages, hostile.VastPerPage)
	}

	p, s, err := pipeProvider(t, "vast-listing", mcpclient.WithoutDiscovery(), mcpclient.WithMaxListing(25_000, 0))
	if err != nil {
		t.Fatal(err)
	}
	if rs, err := p.Resources(context.Background()); rs != nil || !errors.As(err, &pe) || !strings.Contains(err.Error(), `server "piped": resources/list: page 3 takes the listing past 25000 entries in all`) {
		t.Errorf("a million resources under a bound of 25000: %d, %v", len(rs), err)
	}
	if n := s.Count("resources/list"); n != 3 {
		t.Errorf("%d pages of resources read, want 3", n)
	}

	// A page of 10 000 tools is some 580 KB as go-sdk encodes it again.
	_, _, err = pipeProvider(t, "vast-listing", mcpclient.WithMaxListing(100_000, 1<<20))
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "tools/list: page 2 takes the listing past 1048576 bytes in all") {
		t.Errorf("a bound of 1 MiB: %v", err)
	}
	_, _, err = pipeProvider(t, "vast-listing", mcpclient.WithMaxListing(0, 1<<19))
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "tools/list: page 1 takes the listing past 524288 bytes in all") {
		t.Errorf("a bound of 512 KiB: %v", err)
	}
}

// What a server lists besides tools is listed whole, a null entry left
// out, and a null among a resource's contents too: no caller of the
// provider dereferences a server's null.
func TestNullItemsLeftOut(t *testing.T) {
	overEach(t, "null-items", func(t *testing.T, p *mcpclient.Provider) {
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
