package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/llm/openai"
	"github.com/mcpbridge/mcpbridge/tool"
)

// A Model for an OpenAI-compatible server, here a stand-in for Ollama's
// http://localhost:11434/v1 whose model always calls the one tool it is
// offered.
func Example() {
	ollama := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices": [{"finish_reason": "tool_calls", "message": {"role": "assistant",
			"tool_calls": [{"id": "call_1", "type": "function",
				"function": {"name": "get_weather", "arguments": "{\"city\":\"Montreal\"}"}}]}}]}`)
	}))
	defer ollama.Close()

	model, err := openai.New("qwen3:8b", &openai.Options{
		BaseURL:    ollama.URL + "/v1", // omit for api.openai.com
		HTTPClient: ollama.Client(),    // the stand-in's client; omit for the SDK's
		TextOnly:   true,               // a text-only model: images go as [image]
	})
	if err != nil {
		panic(err)
	}
	resp, err := model.Generate(context.Background(), llm.Request{
		Messages: []llm.Message{llm.UserText("How warm is it in Montreal?")},
		Tools: []tool.Definition{{Name: "get_weather", Description: "Current weather in a city.",
			InputSchema: json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string"}}}`)}},
	})
	if err != nil {
		panic(err)
	}
	call := resp.Message.ToolCalls[0]
	fmt.Println(resp.StopReason, call.ID, call.Name, string(call.Arguments))
	// Output: tool_use call_1 get_weather {"city":"Montreal"}
}
