package mcpclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/tool"
)

// A server that asks the user, the host's model and the host's roots while
// a tool runs: here its tool plan, which asks all three (as input requests
// of protocol 2026-07-28; a server of 2025-11-25 sends them as requests,
// which the provider answers the same way).
func planner() *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "planner", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "plan", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			in := req.Params.InputResponses
			if in == nil {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
					"days": &mcp.ElicitParams{Message: "How many days?",
						RequestedSchema: json.RawMessage(`{"type":"object","properties":{"days":{"type":"integer","default":3}},"required":["days"]}`)},
					"idea":  &mcp.CreateMessageWithToolsParams{MaxTokens: 50, Messages: []*mcp.SamplingMessageV2{{Role: "user", Content: []mcp.Content{&mcp.TextContent{Text: "A city to visit?"}}}}},
					"roots": &mcp.ListRootsParams{},
				}}, nil
			}
			days := in["days"].(*mcp.ElicitResult).Content["days"]
			idea := in["idea"].(*mcp.CreateMessageWithToolsResult).Content[0].(*mcp.TextContent).Text
			root := in["roots"].(*mcp.ListRootsResult).Roots[0].Name
			text := fmt.Sprintf("%v days in %s, notes in %s", days, idea, root)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	return server
}

// oneWord is a model that always answers "Lisbon".
type oneWord struct{}

func (oneWord) Vision() bool { return false }
func (oneWord) Generate(context.Context, llm.Request) (*llm.Response, error) {
	return &llm.Response{Message: llm.Message{Parts: []tool.Part{tool.TextPart{Text: "Lisbon"}}}, StopReason: llm.StopEndTurn}, nil
}

// The host's side of the protocol: the user answers a server's questions
// (here, a user who takes every default), the host's model answers its
// requests for completions, within bounds, and its roots say where it may
// work.
func ExampleWithElicitation() {
	takeDefaults := func(_ context.Context, e *tool.Elicitation) (tool.Answer, error) {
		fmt.Printf("%s asks: %s\n", e.Server, e.Message)
		var form struct {
			Properties map[string]struct {
				Default any `json:"default"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(e.Schema, &form); err != nil {
			return tool.Answer{}, err
		}
		content := map[string]any{}
		for name, p := range form.Properties {
			content[name] = p.Default
		}
		return tool.Answer{Action: "accept", Content: content}, nil
	}
	p := mcpclient.FromServer("planner", planner(),
		mcpclient.WithElicitation(takeDefaults),
		mcpclient.WithSampling(mcpclient.Sampling{Model: oneWord{}, MaxTokens: 200, MaxRequests: 2}),
		mcpclient.WithRoots(mcpclient.Root{URI: "file:///home/ada/trips", Name: "trips"}))
	ctx := context.Background()
	if err := p.Connect(ctx); err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	res, err := p.CallToolResult(ctx, "plan", nil)
	fmt.Println(mcpclient.ToReply(res).Text(), err)
	// Output:
	// planner asks: How many days?
	// 3 days in Lisbon, notes in trips <nil>
}
