package gateway_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// linker is a server of protocol 2025-11-25 whose tool sign_in asks the
// user to open a page (a URL elicitation) and, once the user accepted,
// says the flow is complete (notifications/elicitation/complete) before
// it answers.
func linker(t *testing.T) config.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "linker", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "sign_in"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "url", URL: "https://auth.example/sign-in", ElicitationID: "sign-in-1", Message: "Sign in to continue."})
		if err != nil {
			return nil, nil, err
		}
		if res.Action == "accept" {
			if err := req.Session.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: "sign-in-1"}); err != nil {
				return nil, nil, err
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "signed in: " + string(res.Action)}}}, nil, nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return config.Server{Name: "linker", URL: srv.URL, Required: true}
}

// A URL elicitation a server sends during a call reaches the session
// client that made the call, its answer the server, and the server's word
// that the flow is complete the client too.
func TestAURLElicitationAndItsCompletionReachTheCallersClient(t *testing.T) {
	url, _ := serve(t, start(t, []config.Server{linker(t)}, nil))
	asked := make(chan *mcp.ElicitParams, 1)
	completed := make(chan string, 1)
	cs := connect(t, url, versions[1], &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked <- req.Params
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
		ElicitationCompleteHandler: func(_ context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
			completed <- req.Params.ElicitationID
		},
	}, nil)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "linker_sign_in", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); got != "signed in: accept" {
		t.Errorf("result %q", got)
	}
	if p := <-asked; p.Mode != "url" || p.URL != "https://auth.example/sign-in" || p.ElicitationID != "sign-in-1" {
		t.Errorf("asked %+v", p)
	}
	// The completion may reach the client after the result, on its
	// session's own stream.
	if id := <-completed; id != "sign-in-1" {
		t.Errorf("completed %q", id)
	}
}
