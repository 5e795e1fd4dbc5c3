package gateway_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/toolset/config"
)

// A server's requests in flight are shared fairly between the clients
// with requests for it: alice takes all of a server's slots and has one
// more call waiting, then bob's call waits too; the first slot alice gives
// back goes to bob, under his share, not to alice's call that waited
// longer, which goes on waiting while she holds her share or more.
func TestAServerIsSharedFairly(t *testing.T) {
	// started tells of each call that reaches the server, hold's and
	// quick's, in the order they come; the test's end releases every
	// hold still held.
	started, release := make(chan string, 8), make(chan struct{}, 8)
	released := make(chan struct{})
	s := mcp.NewServer(&mcp.Implementation{Name: "shared", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "hold"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		started <- "hold"
		select {
		case <-release:
		case <-released:
		case <-ctx.Done():
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "held"}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "quick"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		started <- "quick"
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "quick"}}}, nil, nil
	})
	g := start(t, []config.Server{{Name: "shared", URL: serveStateless(t, s, nil), Required: true}}, &gateway.Options{
		Clients: map[string]gateway.Client{"alice": {Token: "ta"}, "bob": {Token: "tb"}},
		Limits:  gateway.Limits{ServerCalls: 4},
	})
	t.Cleanup(func() { close(released) }) // before the server's end, which waits for its calls
	waits := make(chan struct{}, 8)
	gateway.OnServerWait(g, "shared", func() { waits <- struct{}{} })
	url, _ := serve(t, g)
	alice := connect(t, url, versions[0], nil, bearer("ta"))
	bob := connect(t, url, versions[0], nil, bearer("tb"))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan string, 8)
	call := func(cs *mcp.ClientSession, tool string) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "shared_" + tool})
		if err != nil {
			done <- tool + ": " + err.Error()
			return
		}
		data, _ := json.Marshal(res.Content)
		if tc, ok := res.Content[0].(*mcp.TextContent); ok && len(res.Content) == 1 && !res.IsError {
			data = []byte(tc.Text)
		}
		done <- string(data)
	}
	for range 4 {
		go call(alice, "hold")
		<-started
	}
	go call(alice, "hold") // the fifth: it waits
	<-waits
	go call(bob, "quick")
	<-waits
	release <- struct{}{}
	if next := <-started; next != "quick" {
		t.Fatalf("the slot alice gave back went to her own call (%s), bob's waiting", next)
	}
	// Alice's answer and bob's come in either order.
	if got := []string{<-done, <-done}; !slices.Contains(got, "held") || !slices.Contains(got, "quick") {
		t.Fatalf("the answers after alice gave back a slot: %q; want hers and bob's", got)
	}
	<-started // alice's fifth, once bob's call gave its slot back
	for range 4 {
		release <- struct{}{}
	}
	for range 4 {
		if got := <-done; got != "held" {
			t.Fatalf("alice's calls: %s", got)
		}
	}
}
