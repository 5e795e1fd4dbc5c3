package mcptool

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// askedClient answers every question with its own name.
type askedClient struct{ name string }

func (c *askedClient) Elicit(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"by": c.name}}, nil
}

func (c *askedClient) CreateMessageWithTools(context.Context, *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error) {
	return &mcp.CreateMessageWithToolsResult{Model: c.name}, nil
}

func (c *askedClient) NotifyElicitationComplete(context.Context, *mcp.ElicitationCompleteParams) error {
	return nil
}

// A request a server sends on its own goes to the one client whose calls
// are in flight, with a call's context; with calls of two clients in
// flight it is refused, and neither is asked.
func TestARequestGoesOnlyToTheOneClientInFlight(t *testing.T) {
	p := &Provider{name: "s"}
	ada, bob := &askedClient{"ada"}, &askedClient{"bob"}
	elicit := func() (*mcp.ElicitResult, bool, error) {
		return relayed(p, context.Background(), func(ctx context.Context, r Relay) (*mcp.ElicitResult, error) {
			if ctx.Value(frameKey{}) == nil {
				t.Error("the relay was not asked with a call's context")
			}
			return r.Elicit(ctx, &mcp.ElicitParams{Message: "who?"})
		})
	}
	if _, ok, _ := elicit(); ok {
		t.Fatal("relayed with no call in flight")
	}
	_, end1 := p.inflight.begin(WithCaller(context.Background(), Caller{Relay: ada}), "one")
	_, end2 := p.inflight.begin(WithCaller(context.Background(), Caller{Relay: ada}), "two")
	res, ok, err := elicit()
	if !ok || err != nil || res.Content["by"] != "ada" {
		t.Fatalf("two calls of one client: %v %v %v", res, ok, err)
	}
	_, end3 := p.inflight.begin(WithCaller(context.Background(), Caller{Relay: bob}), "three")
	if res, ok, err := elicit(); !ok || err == nil || res != nil {
		t.Fatalf("calls of two clients: %v %v %v", res, ok, err)
	}
	end1()
	end2()
	if res, _, err := elicit(); err != nil || res.Content["by"] != "bob" {
		t.Fatalf("bob's call alone: %v %v", res, err)
	}
	end3()
}
