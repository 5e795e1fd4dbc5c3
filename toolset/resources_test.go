package toolset_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/toolset"
)

// The set's Offer reads the resources of each server that has them, by
// the server's name, and of no other.
func TestOfferReadsResources(t *testing.T) {
	plain := mcp.NewServer(&mcp.Implementation{Name: "plain", Version: "1"}, nil)
	plain.AddTool(&mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	ts := start(t, &toolset.Config{Servers: []toolset.ServerConfig{
		{Name: "notes", URL: serveMCP(t, demo.New())},
		{Name: "plain", URL: serveMCP(t, plain)},
	}})
	ctx := context.Background()
	set, err := ts.Offer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Resources) != 1 || set.Resources["notes"] == nil {
		t.Fatalf("resources %v; want the notes server's alone", set.Resources)
	}
	res, err := set.Resources["notes"](ctx, "notes://all")
	if err != nil || !strings.HasPrefix(res.Text(), "# Notes") {
		t.Fatalf("notes://all: %q, %v", res.Text(), err)
	}
}
