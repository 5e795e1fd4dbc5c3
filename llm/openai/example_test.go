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

// New takes the model's name and Options, and sends nothing until
// Generate. Here a stand-in for api.openai.com prints what each request
// carries of them: the key, the model, the token limit.
func ExampleNew() {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var sent struct {
			Model     string `json:"model"`
			MaxTokens int    `json:"max_completion_tokens"`
		}
		json.NewDecoder(r.Body).Decode(&sent)
		fmt.Println(r.URL.Path, r.Header.Get("Authorization"), sent.Model, sent.MaxTokens)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4.1",
			"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Hello!"}}],
			"usage": {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12}}`)
	}))
	defer api.Close()

	model, err := openai.New("gpt-4.1", &openai.Options{
		BaseURL:    api.URL + "/v1", // omit for api.openai.com
		APIKey:     "sk-example",    // omit to read OPENAI_API_KEY
		HTTPClient: api.Client(),    // the stand-in's client; omit for the SDK's
		MaxTokens:  1024,            // for a request that sets no limit
	})
	if err != nil {
		panic(err)
	}
	resp, err := model.Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("Say hello.")}})
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.Message.Text(), resp.StopReason, resp.Usage.InputTokens, resp.Usage.OutputTokens)
	// Output:
	// /v1/chat/completions Bearer sk-example gpt-4.1 1024
	// Hello! end_turn 9 3
}
