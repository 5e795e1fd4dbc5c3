package llm_test

import (
	"context"
	"fmt"

	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/tool"
)

// scripted is a stand-in for a vendor's Model: it calls the weather tool,
// then answers with what the tool said.
type scripted struct{}

func (scripted) Vision() bool { return false }

func (scripted) Generate(_ context.Context, req llm.Request) (*llm.Response, error) {
	last := req.Messages[len(req.Messages)-1]
	if last.Role == llm.RoleTool {
		return &llm.Response{
			Message:    llm.Message{Role: llm.RoleAssistant, Parts: []tool.Part{tool.TextPart{Text: "It is " + last.Text() + "."}}},
			StopReason: llm.StopEndTurn,
			Usage:      llm.Usage{InputTokens: 30, OutputTokens: 8},
		}, nil
	}
	call := llm.ToolCall{ID: "call_1", Name: req.Tools[0].Name, Arguments: []byte(`{"city": "Montreal"}`)}
	return &llm.Response{
		Message:    llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call}},
		StopReason: llm.StopToolUse,
		Usage:      llm.Usage{InputTokens: 20, OutputTokens: 10},
	}, nil
}

// The tool loop: send the conversation, run the calls the model asks for,
// send their results back, until the model answers. Any [llm.Model] works the
// same way; this one is scripted.
func Example() {
	type weatherArgs struct {
		City string `json:"city"`
	}
	weather, err := tool.Func("get_weather", "Current weather in a city.",
		func(_ context.Context, in weatherArgs) (string, error) { return "20°C in " + in.City, nil })
	if err != nil {
		panic(err)
	}
	handler := weather.Handler

	var model llm.Model = scripted{}
	ctx := context.Background()
	req := llm.Request{
		System:   "You report the weather.",
		Messages: []llm.Message{llm.UserText("How warm is it in Montreal?")},
		Tools:    weather.Definitions,
	}
	var total llm.Usage
	for {
		resp, err := model.Generate(ctx, req)
		if err != nil {
			panic(err)
		}
		total.InputTokens += resp.Usage.InputTokens
		total.OutputTokens += resp.Usage.OutputTokens
		req.Messages = append(req.Messages, resp.Message)
		if len(resp.Message.ToolCalls) == 0 {
			fmt.Println(resp.Message.Text())
			break
		}
		for _, call := range resp.Message.ToolCalls {
			res, err := handler.Call(ctx, call.Name, call.Arguments)
			if err != nil {
				req.Messages = append(req.Messages, llm.ToolError(call, err.Error()))
				continue
			}
			req.Messages = append(req.Messages, llm.ToolResult(call, res))
		}
	}
	fmt.Println(total.InputTokens, total.OutputTokens)
	// Output:
	// It is 20°C in Montreal.
	// 50 18
}

// UserText is what a person's prompt becomes. A message with an image is
// written out whole, for a model whose Vision says it reads images; its
// Text leaves the image out.
func ExampleUserText() {
	ask := llm.UserText("Weather in Montreal?")
	fmt.Println(ask.Role, ask.Text())

	png := []byte{0x89, 'P', 'N', 'G'} // a screenshot's bytes
	look := llm.Message{Role: llm.RoleUser, Parts: []tool.Part{
		tool.TextPart{Text: "What is in this picture?"},
		tool.ImagePart{MIMEType: "image/png", Data: png},
	}}
	fmt.Println(look.Role, look.Text(), len(look.Parts))
	// Output:
	// user Weather in Montreal?
	// user What is in this picture? 2
}

// ToolResult answers a call the model made with what the tool replied,
// under the call's ID, which the vendor matches to the call.
func ExampleToolResult() {
	type weatherArgs struct {
		City string `json:"city"`
	}
	weather, err := tool.Func("get_weather", "Current weather in a city.",
		func(_ context.Context, in weatherArgs) (string, error) { return "20°C in " + in.City, nil })
	if err != nil {
		panic(err)
	}
	call := llm.ToolCall{ID: "call_1", Name: "get_weather", Arguments: []byte(`{"city": "Montreal"}`)}
	res, err := weather.Handler.Call(context.Background(), call.Name, call.Arguments)
	if err != nil {
		panic(err)
	}
	m := llm.ToolResult(call, res)
	fmt.Println(m.Role, m.ToolCallID, m.ToolName, m.IsError, m.Text())
	// Output:
	// tool call_1 get_weather false 20°C in Montreal
}

// ToolError answers a call that failed, flagged so, in words the model
// reads and can act on: here arguments the tool refused before it ran.
func ExampleToolError() {
	type weatherArgs struct {
		City string `json:"city"`
	}
	weather, err := tool.Func("get_weather", "Current weather in a city.",
		func(_ context.Context, in weatherArgs) (string, error) { return "20°C in " + in.City, nil })
	if err != nil {
		panic(err)
	}
	call := llm.ToolCall{ID: "call_2", Name: "get_weather", Arguments: []byte(`{"city": 42}`)}
	if _, err := weather.Handler.Call(context.Background(), call.Name, call.Arguments); err != nil {
		m := llm.ToolError(call, err.Error())
		fmt.Println(m.Role, m.ToolCallID, m.IsError)
		fmt.Println(m.Text())
	}
	// Output:
	// tool call_2 true
	// tool "get_weather" refused: argument "city": want string, got integer
}
