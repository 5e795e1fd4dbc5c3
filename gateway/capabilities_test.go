package gateway_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server that takes the client's capabilities with each request
// (2026-07-28) is told, on a call the gateway makes for a client, what
// that client answers: it asks a client that declared no sampling nothing,
// and may refuse it (-32021), though the gateway relays sampling for
// another client that declared it.
func TestAServerSeesTheCallingClientsCapabilities(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "caps", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "caps", Description: "Say what the client declared"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		caps := req.ClientCapabilities()
		text := fmt.Sprintf("sampling %v, elicitation %v", caps != nil && caps.Sampling != nil, caps != nil && caps.Elicitation != nil)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	})
	g := start(t, []config.Server{{Name: "caps", URL: serveStateless(t, srv, nil), Required: true}}, nil)
	url, _ := serve(t, g)
	for _, tc := range []struct {
		opts *mcp.ClientOptions
		want string
	}{
		{nil, "sampling false, elicitation false"},
		{&mcp.ClientOptions{
			CreateMessageWithToolsHandler: func(context.Context, *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
				return nil, nil
			},
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return nil, nil },
		}, "sampling true, elicitation true"},
	} {
		cs := connect(t, url, versions[0], tc.opts, nil)
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "caps_caps"})
		if err != nil {
			t.Fatal(err)
		}
		if got := text(t, res); got != tc.want {
			t.Errorf("the server saw %q; want %q", got, tc.want)
		}
	}
}
