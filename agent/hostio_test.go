package agent_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/agent"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/tool"
)

// The agent's Elicit answers what a server asks during the run's calls,
// rather than the provider's own elicitor, and what a local tool asks.
func TestAgentElicit(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "asks", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "greet", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if a, ok := req.Params.InputResponses["name"].(*mcp.ElicitResult); ok {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + a.Content["name"].(string)}}}, nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{Message: "Your name?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)}}}, nil
		})
	outside := func(context.Context, *tool.Elicitation) (tool.Answer, error) {
		t.Error("the provider's own elicitor was asked during a run")
		return tool.Answer{Action: "cancel"}, nil
	}
	p, stop, err := connectDemo(context.Background(), srv, mcpclient.WithElicitation(outside))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	sure := json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)
	confirm, _ := tool.Func("confirm", "Ask the user to confirm.", func(ctx context.Context, _ struct{}) (string, error) {
		a, err := tool.Elicit(ctx, &tool.Elicitation{Message: "Sure?", Schema: sure})
		if err != nil {
			return "", err
		}
		return string(a.Action), nil
	})
	var mu sync.Mutex // the turn's two calls run concurrently
	var asked []string
	model := &scripted{turns: []func(llm.Request) llm.Message{
		calls(tc("1", "greet", `{}`), tc("2", "confirm", `{}`)),
		answer("done"),
	}}
	a, err := agent.New(agent.Config{Model: model, Tools: []tool.Source{p, confirm},
		Elicit: func(_ context.Context, e *tool.Elicitation) (tool.Answer, error) {
			mu.Lock()
			asked = append(asked, e.Server+": "+e.Message)
			mu.Unlock()
			if e.Server == "" {
				return tool.Answer{Action: "accept", Content: map[string]any{"ok": true}}, nil
			}
			return tool.Answer{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(context.Background(), []llm.Message{llm.UserText("greet me")})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Messages[2].Text(); got != "hello Ada" {
		t.Errorf("greet: %q", got)
	}
	if got := res.Messages[3].Text(); got != "accept" {
		t.Errorf("confirm: %q", got)
	}
	if len(asked) != 2 {
		t.Errorf("asked %v", asked)
	}
}
