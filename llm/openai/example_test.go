package openai_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/llm/openai"
)

// A Model for an OpenAI-compatible server, here a stand-in for Ollama's
// http://localhost:11434/v1 that answers every request the same way.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "qwen3:8b",
			"choices": [{"index": 0, "finish_reason": "stop",
				"message": {"role": "assistant", "content": "Bonjour !"}}],
			"usage": {"prompt_tokens": 12, "completion_tokens": 4, "total_tokens": 16}}`)
	}))
	defer srv.Close()

	model, err := openai.New("qwen3:8b",
		openai.WithBaseURL(srv.URL+"/v1"),
		openai.WithHTTPClient(srv.Client()), // the stand-in's client; omit for the SDK's
		openai.WithVision(false),            // a text-only model: images go as [image]
	)
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
	fmt.Println(resp.StopReason, resp.Usage.InputTokens, resp.Usage.OutputTokens)
	// Output:
	// Bonjour !
	// end_turn 12 4
}
