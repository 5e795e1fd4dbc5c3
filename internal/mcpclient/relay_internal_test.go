package mcpclient

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
			if frameKey.Value(ctx) == nil {
				t.Error("the relay was not asked with a call's context")
			}
			return r.Elicit(ctx, &mcp.ElicitParams{Message: "who?"})
		})
	}
	if _, ok, _ := elicit(); ok {
		t.Fatal("relayed with no call in flight")
	}
	one := p.inflight.begin(WithCaller(context.Background(), Caller{Relay: ada}), "one")
	two := p.inflight.begin(WithCaller(context.Background(), Caller{Relay: ada}), "two")
	res, ok, err := elicit()
	if !ok || err != nil || res.Content["by"] != "ada" {
		t.Fatalf("two calls of one client: %v %v %v", res, ok, err)
	}
	three := p.inflight.begin(WithCaller(context.Background(), Caller{Relay: bob}), "three")
	if res, ok, err := elicit(); !ok || err == nil || res != nil {
		t.Fatalf("calls of two clients: %v %v %v", res, ok, err)
	}
	p.inflight.end(one)
	p.inflight.end(two)
	if res, _, err := elicit(); err != nil || res.Content["by"] != "bob" {
		t.Fatalf("bob's call alone: %v %v", res, err)
	}
	p.inflight.end(three)
}

// completedClient records the URL elicitations it is told are complete.
type completedClient struct {
	askedClient
	completed []string
}

func (c *completedClient) NotifyElicitationComplete(_ context.Context, p *mcp.ElicitationCompleteParams) error {
	c.completed = append(c.completed, p.ElicitationID)
	return nil
}

// The server's word that a URL elicitation is complete reaches the client
// it was relayed to, also when it comes after the call returned (go-sdk
// may hand it over after the result), once.
func TestAURLElicitationCompletedAfterItsCallReachesTheClient(t *testing.T) {
	p := &Provider{name: "s"}
	ada := &completedClient{askedClient: askedClient{"ada"}}
	f := p.inflight.begin(WithCaller(context.Background(), Caller{Relay: ada}), "sign_in")
	if _, err := p.relayElicit(f.ctx, ada, &mcp.ElicitParams{Mode: "url", URL: "https://auth.example", ElicitationID: "e1"}); err != nil {
		t.Fatal(err)
	}
	p.inflight.end(f)
	complete := func(id string) {
		p.completed(context.Background(), &mcp.ElicitationCompleteNotificationRequest{Params: &mcp.ElicitationCompleteParams{ElicitationID: id}})
	}
	complete("e1")
	complete("e1")
	complete("unknown")
	if len(ada.completed) != 1 || ada.completed[0] != "e1" {
		t.Fatalf("the client was told %v; want [e1]", ada.completed)
	}
}
