package mcptool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/mcptool"
)

func TestElicitation(t *testing.T) {
	server := newServer("asks")
	server.AddTool(&mcp.Tool{Name: "greet", InputSchema: json.RawMessage(`{"type":"object"}`)},
		// On protocol 2026-07-28 a tool asks by returning input requests
		// (SEP-2322); the client answers and calls again.
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if answer, ok := req.Params.InputResponses["name"].(*mcp.ElicitResult); ok && req.Params.RequestState == "asked" {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + answer.Content["name"].(string)}}}, nil
			}
			return &mcp.CallToolResult{RequestState: "asked", InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{
				Message:         "What is your name?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
			}}}, nil
		})
	p, _ := inProcess(t, server, mcptool.WithElicitation(func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		if req.Params.Message != "What is your name?" {
			t.Errorf("message %q", req.Params.Message)
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
	}))
	if got, err := p.CallTool(context.Background(), "greet", nil); err != nil || got != "hello Ada" {
		t.Fatalf("got %q, %v", got, err)
	}
	// Without the option the provider cannot answer.
	p2, _ := inProcess(t, server)
	if got, err := p2.CallTool(context.Background(), "greet", nil); err == nil || strings.Contains(got, "hello") {
		t.Fatalf("without elicitation: %q, %v", got, err)
	}
}
