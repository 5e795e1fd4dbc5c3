package sdkfix

// go-sdk's server, as package gateway serves many clients with it.

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// gateway/subscriptions.go: go-sdk calls the unsubscribe handler for any
// session's resources/unsubscribe, one that never subscribed too, so the
// gateway keeps which sessions subscribed rather than a count.
func TestGoSDKUnsubscribesAnySession(t *testing.T) {
	unsubscribed := 0
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, &mcp.ServerOptions{
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { unsubscribed++; return nil },
	})
	s.AddResource(&mcp.Resource{URI: "note://a", Name: "a"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return nil, nil
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if err := cs.Unsubscribe(context.Background(), &mcp.UnsubscribeParams{URI: "note://a"}); err != nil {
		t.Fatal(err)
	}
	if unsubscribed != 1 {
		t.Fatalf(upgraded+"the unsubscribe handler is not called for a session that never subscribed (%d calls): gateway/subscriptions.go may count subscribers", unsubscribed)
	}
}
