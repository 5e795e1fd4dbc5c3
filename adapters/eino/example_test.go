package eino_test

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/flow/agent/react"
	einoschema "github.com/cloudwego/eino/schema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/adapters/eino"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/schema"
)

// An MCP server's tools in eino's ReAct agent. The server is a go-sdk
// server written here; any other is reached the same way
// (mcptool.FromCommand for a command over stdio, mcptool.FromURL over
// HTTP), and a toolset.Toolset serves many. The chat model is played by
// greeterModel below: use any eino ToolCallingChatModel, and the vendor
// of its API as Options.Vendor.
func Example() {
	server := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "1.0.0"}, &mcp.ServerOptions{Instructions: "Greet people warmly."})
	type greeting struct {
		Name string `json:"name" jsonschema:"whom to greet"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "greet", Description: "Greet someone by name."},
		func(_ context.Context, _ *mcp.CallToolRequest, in greeting) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hello, " + in.Name + "!"}}}, nil, nil
		})
	ctx := context.Background()
	greeter := mcptool.FromServer(server, &mcptool.Options{Name: "greeter"})
	if err := greeter.Connect(ctx); err != nil {
		fmt.Println(err)
		return
	}
	defer greeter.Close()

	agent, err := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: &greeterModel{}, MaxStep: 8})
	if err != nil {
		fmt.Println(err)
		return
	}
	// One Offer a run: the server's tools as they are now.
	offer, err := eino.Tools(ctx, greeter, &eino.Options{Vendor: schema.OpenAI})
	if err != nil {
		fmt.Println(err)
		return
	}
	tools, err := react.WithTools(ctx, offer.Tools...)
	if err != nil {
		fmt.Println(err)
		return
	}
	msgs := []*einoschema.Message{
		einoschema.SystemMessage("You are a helpful assistant.\n\n" + offer.System),
		einoschema.UserMessage("Say hello to Ada."),
	}
	answer, err := agent.Generate(ctx, msgs, tools...)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(answer.Content)
	// Output:
	// The greeter says: Hello, Ada!
}

// greeterModel stands in for a chat model: it calls greet, then answers
// with what the tool said.
type greeterModel struct{}

func (greeterModel) Generate(_ context.Context, in []*einoschema.Message, _ ...model.Option) (*einoschema.Message, error) {
	last := in[len(in)-1]
	if last.Role == einoschema.Tool {
		return einoschema.AssistantMessage("The greeter says: "+last.UserInputMultiContent[0].Text, nil), nil
	}
	return einoschema.AssistantMessage("", []einoschema.ToolCall{{ID: "1", Type: "function",
		Function: einoschema.FunctionCall{Name: "greet", Arguments: `{"name":"Ada"}`}}}), nil
}

func (m greeterModel) Stream(ctx context.Context, in []*einoschema.Message, opts ...model.Option) (*einoschema.StreamReader[*einoschema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return einoschema.StreamReaderFromArray([]*einoschema.Message{msg}), nil
}

func (m *greeterModel) WithTools([]*einoschema.ToolInfo) (model.ToolCallingChatModel, error) {
	return m, nil
}
