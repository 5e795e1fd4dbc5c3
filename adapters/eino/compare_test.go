package eino_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/adapters/eino"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
	"github.com/mcpbridge/mcpbridge/mcptool"
)

// Pages and bounds, for the eino column of docs/frameworks.md (eino-ext's
// MCP tools list the first page alone; its row is a recorded run): the
// adapter's tools are every page of a listing, and a listing that never
// ends stops at the provider's bound (100 pages), saying so.
func TestComparePagesAndBounds(t *testing.T) {
	ctx := context.Background()
	_, pages := hostile.Start(t, "pages")
	p := mcptool.FromURL(mcptool.HTTP{URL: pages.URL}, &mcptool.Options{Name: "pages"})
	if err := p.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	offer, err := eino.Tools(ctx, p, nil)
	if err != nil || len(offer.Tools) != 3 {
		t.Fatalf("%d tools of 3 pages: %v", len(offer.Tools), err)
	}
	_, endless := hostile.Start(t, "endless")
	p = mcptool.FromURL(mcptool.HTTP{URL: endless.URL}, &mcptool.Options{Name: "endless"})
	if err := p.Connect(ctx); err == nil || !strings.Contains(err.Error(), "more than 100 pages") {
		t.Fatalf("an endless listing: %v", err)
	}
}
