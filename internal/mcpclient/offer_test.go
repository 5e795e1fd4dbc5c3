package mcpclient_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
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
	var te *mcpclient.TransportError
	if _, err := p.Offer(ctx); !errors.As(err, &te) || !errors.Is(err, mcpclient.ErrNotConnected) {
		t.Fatalf("closed: %v; want a TransportError wrapping ErrNotConnected", err)
	}
}

// An Offer's Set carries what the server brings besides its tools, under
// the provider's name: its instructions, and its skills (listed once for
// all Offers, loaded on demand, every read verified); a server that brings
// nothing has no entry.
func TestOfferBringsTheServer(t *testing.T) {
	srv := demo.New()
	var lists atomic.Int32
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "skills/list" {
				lists.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	p, _ := inProcess(t, srv)
	ctx := context.Background()
	var set tool.Set
	for range 2 {
		var err error
		if set, err = p.Offer(ctx); err != nil {
			t.Fatal(err)
		}
	}
	notes, ok := set.Servers[p.Name()]
	if !ok || len(set.Servers) != 1 || notes.Instructions == "" || notes.Instructions != p.Instructions() || notes.Resources == nil {
		t.Fatalf("servers %+v; want the demo's instructions and resources under %q", set.Servers, p.Name())
	}
	if len(notes.Skills) != 1 || notes.Skills[0].Name != "weekly-review" || lists.Load() != 1 {
		t.Fatalf("skills %+v, listed %d times; want weekly-review, listed once", notes.Skills, lists.Load())
	}
	body, files, err := notes.Skills[0].Load(ctx)
	if err != nil || !strings.Contains(body, "note_stats") || files["references/TAGS.md"] == 0 {
		t.Fatalf("Load: %q, %v, %v", body, files, err)
	}
	if data, err := notes.Skills[0].ReadFile(ctx, "references/TAGS.md"); err != nil || !strings.Contains(string(data), "review") {
		t.Fatalf("ReadFile: %q, %v", data, err)
	}
	plain := newServer("plain")
	textTool(plain, "t", func(*mcp.CallToolRequest) string { return "" })
	p, _ = inProcess(t, plain)
	if set, err := p.Offer(ctx); err != nil || set.Servers != nil {
		t.Fatalf("a server that brings nothing: %v, %v", set.Servers, err)
	}
}
