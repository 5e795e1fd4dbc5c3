package demo

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/skills"
)

// The demo's skill passes every check of the host-side skills client:
// listed, loaded, its reference file read, sizes and digests verified, over
// every transport the demo speaks (go-sdk's legacy SSE handler alone would
// refuse skills/list).
func TestWeeklyReviewSkill(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/mcp", HTTPHandler())
	mux.Handle("/sse", SSEHandler())
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for _, p := range []*mcpclient.Provider{
		mcpclient.FromServer("in-process", New()),
		mcpclient.FromURL(srv.URL+"/mcp", mcpclient.WithName("streamable")),
		mcpclient.FromURL(srv.URL+"/sse", mcpclient.WithName("sse")),
	} {
		t.Run(p.Name(), func(t *testing.T) { weeklyReview(t, p) })
	}
}

func weeklyReview(t *testing.T, p *mcpclient.Provider) {
	ctx := context.Background()
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
