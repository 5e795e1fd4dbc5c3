package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/llm/anthropic"
)

// A Model for Claude, here against a stand-in for api.anthropic.com that
// answers every request the same way.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
			"content": [{"type": "text", "text": "Bonjour !"}], "stop_reason": "end_turn", "stop_sequence": null,
			"usage": {"input_tokens": 2, "cache_read_input_tokens": 10, "output_tokens": 4}}`)
	}))
	defer srv.Close()

	model, err := anthropic.New("claude-sonnet-4-5", &anthropic.Options{
		BaseURL:       srv.URL,          // omit for api.anthropic.com
		APIKey:        "sk-ant-example", // omit to read ANTHROPIC_API_KEY
		HTTPClient:    srv.Client(),     // the stand-in's client; omit for the SDK's
		PromptCaching: true,             // cache tools and system prompt
	})
	if err != nil {
		panic(err)
	}
	resp, err := model.Generate(context.Background(), llm.Request{
		System:   "Answer in French.",
		Messages: []llm.Message{llm.UserText("Say hello.")},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.Message.Text())
	u := resp.Usage
	fmt.Println(resp.StopReason, u.InputTokens, u.CachedInputTokens, u.OutputTokens)
	// Output:
	// Bonjour !
	// end_turn 12 10 4
}

// New takes the model's name and Options, refuses options that cannot
// work, and sends nothing until Generate. Here a stand-in for
// api.anthropic.com prints what each request carries of them: the model,
// and the token limit this API requires (4096 unless Options.MaxTokens or
// the request sets one).
func ExampleNew() {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var sent struct {
			Model     string `json:"model"`
			MaxTokens int    `json:"max_tokens"`
		}
		json.NewDecoder(r.Body).Decode(&sent)
		fmt.Println(r.URL.Path, sent.Model, sent.MaxTokens)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
			"content": [{"type": "text", "text": "Hello!"}], "stop_reason": "end_turn", "stop_sequence": null,
			"usage": {"input_tokens": 9, "output_tokens": 3}}`)
	}))
	defer api.Close()

	model, err := anthropic.New("claude-sonnet-4-5", &anthropic.Options{
		BaseURL:    api.URL,          // omit for api.anthropic.com
		APIKey:     "sk-ant-example", // omit to read ANTHROPIC_API_KEY
		HTTPClient: api.Client(),     // the stand-in's client; omit for the SDK's
	})
	if err != nil {
		panic(err)
	}
	resp, err := model.Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("Say hello.")}})
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.Message.Text(), resp.StopReason, resp.Usage.InputTokens, resp.Usage.OutputTokens)

	_, err = anthropic.New("claude-sonnet-4-5", &anthropic.Options{MaxTokens: -1})
	fmt.Println(err)
	// Output:
	// /v1/messages claude-sonnet-4-5 4096
	// Hello! end_turn 9 3
	// anthropic: MaxTokens -1: the API requires a token limit
}
