package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/mcpbridge/mcpbridge/agent"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/tool"
)

// fakeModel is a model of one's own, for a test of the host's wiring: it
// calls the first tool it is offered once, then answers with what the tool
// said. Any llm.Model runs the same loop: llm/openai, llm/anthropic.
type fakeModel struct{}

func (fakeModel) Vision() bool { return false }

func (fakeModel) Generate(_ context.Context, req llm.Request) (*llm.Response, error) {
	last := req.Messages[len(req.Messages)-1]
	if last.Role == llm.RoleTool {
		return &llm.Response{
			Message:    llm.Message{Role: llm.RoleAssistant, Parts: []tool.Part{tool.TextPart{Text: "The tool said: " + last.Text()}}},
			StopReason: llm.StopEndTurn,
		}, nil
	}
	call := llm.ToolCall{ID: "call_1", Name: req.Tools[0].Name, Arguments: json.RawMessage(`{"city": "Lisbon"}`)}
	return &llm.Response{
		Message:    llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call}},
		StopReason: llm.StopToolUse,
	}, nil
}

// An agent run with a model of one's own and a local tool, the whole program
// but its MCP servers: a provider (mcptool.FromCommand, mcptool.FromURL) or
// a toolset joins the local tools in Tools.
func Example_ownModel() {
	type weatherArgs struct {
		City string `json:"city" jsonschema:"the city's name"`
	}
	weather, err := tool.Func("get_weather", "Current weather in a city.",
		func(_ context.Context, in weatherArgs) (string, error) { return "18°C in " + in.City, nil })
	if err != nil {
		log.Fatal(err)
	}
	a, err := agent.New(agent.Config{
		Model: fakeModel{},
		Tools: []tool.Source{weather},
	})
	if err != nil {
		log.Fatal(err)
	}
	res, err := a.Run(context.Background(), []llm.Message{llm.UserText("Weather in Lisbon?")})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text)
	// Output:
	// The tool said: 18°C in Lisbon
}
