package mcpclient_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
)

// A resources/read made for a caller asked only in results returns the
// server's question whole, and the caller's answer, sent with the next
// read, reaches the server.
func TestAResourceReadForACallerReturnsTheQuestion(t *testing.T) {
	s := newServer("notes")
	s.AddResource(&mcp.Resource{URI: "memo://greeting", Name: "greeting"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		answer, ok := req.Params.InputResponses["who"].(*mcp.ElicitResult)
		if !ok {
			return &mcp.ReadResourceResult{InputRequests: mcp.InputRequestMap{"who": &mcp.ElicitParams{Message: "Who are you?"}}, RequestState: "asked"}, nil
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "hello " + answer.Content["name"].(string) + " " + req.Params.RequestState}}}, nil
	})
	p, _ := inProcess(t, s, mcpclient.WithRelay())
	res, err := p.ReadResource(mcpclient.WithCaller(t.Context(), mcpclient.Caller{Relay: mcpclient.ResultOnly{}}), "memo://greeting")
	if err != nil {
		t.Fatal(err)
	}
	if q, ok := res.InputRequests["who"].(*mcp.ElicitParams); !ok || q.Message != "Who are you?" || res.RequestState != "asked" {
		t.Fatalf("want the question, got %+v", res)
	}
	answered := mcpclient.Caller{Relay: mcpclient.ResultOnly{}, RequestState: res.RequestState, InputResponses: mcp.InputResponseMap{"who": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}}}
	res, err = p.ReadResource(mcpclient.WithCaller(t.Context(), answered), "memo://greeting")
	if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != "hello Ada asked" {
		t.Fatalf("answered: %+v, %v", res, err)
	}
}
