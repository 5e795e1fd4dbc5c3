package mcptool_test

import (
	"context"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/tool"
)

// Proves that an Offer's definitions and handler agree, and keep agreeing
// after the server lists other tools: the old set still declines a tool it
// never offered, and the next set offers and serves it.
func TestOffer(t *testing.T) {
	srv := newServer("s")
	add := func(name string) { textTool(srv, name, func(*mcp.CallToolRequest) string { return "ran " + name }) }
	add("first")
	p, _ := inProcess(t, srv)
	ctx := context.Background()
	old, err := p.Offer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(old.Definitions) != 1 || old.Definitions[0].Name != "first" {
		t.Fatalf("offered %+v", old.Definitions)
	}
	add("second")
	if err := p.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := old.Handler.Call(ctx, "second", nil); !errors.Is(err, tool.ErrUnserved) {
		t.Fatalf("the old set served a tool it never offered: %v", err)
	}
	if got := call(t, old.Handler, "first", `{}`).Text(); got != "ran first" {
		t.Fatalf("old set: %q", got)
	}
	next, err := p.Offer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(next.Definitions) != 2 || call(t, next.Handler, "second", `{}`).Text() != "ran second" {
		t.Fatalf("the next set: %+v", next.Definitions)
	}
	p.Close()
	var te *mcptool.TransportError
	if _, err := p.Offer(ctx); !errors.As(err, &te) || !errors.Is(err, mcptool.ErrNotConnected) {
		t.Fatalf("closed: %v; want a TransportError wrapping ErrNotConnected", err)
	}
}
