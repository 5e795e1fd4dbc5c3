package main_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// localModels serves an OpenAI-compatible API as a local server does: the
// models listed at /models, and chat completions that answer "hi" and note
// the model asked for.
func localModels(t *testing.T, models ...string) (url string, asked func() []string) {
	var mu sync.Mutex
	var names []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/models":
			var data []map[string]string
			for _, m := range models {
				data = append(data, map[string]string{"id": m, "object": "model"})
			}
			json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
		case "/v1/chat/completions":
			var body struct{ Model string }
			json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&body)
			mu.Lock()
			names = append(names, body.Model)
			mu.Unlock()
			io.WriteString(w, `{"id":"1","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"hi"}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), names...)
	}
}

// With OPENAI_BASE_URL and no --model, chat asks the server for its
// models: the one it has is used, and among several the user is asked to
// choose with --model; OpenAI's own model name is never sent to another
// server.
func TestChatModelOfALocalServer(t *testing.T) {
	dir := t.TempDir()
	url, asked := localModels(t, "qwen3:8b")
	env := []string{"OPENAI_BASE_URL=" + url, "OPENAI_API_KEY=", "ANTHROPIC_API_KEY="}
	expect(t, mcpbridge(t, dir, "", env, "chat", "-p", "hello"), 0, "hi")
	if got := asked(); len(got) != 1 || got[0] != "qwen3:8b" {
		t.Errorf("models asked for: %v, want the one the server has", got)
	}

	url, asked = localModels(t, "llama3.2:3b", "qwen3:8b", "gemma3:4b", "phi4", "mistral")
	env = []string{"OPENAI_BASE_URL=" + url, "OPENAI_API_KEY=", "ANTHROPIC_API_KEY="}
	r := mcpbridge(t, dir, "", env, "chat", "-p", "hello")
	expect(t, r, 2, "mcpbridge chat: OPENAI_BASE_URL is set, and its server has 5 models: give --model NAME, one of llama3.2:3b, qwen3:8b, gemma3:4b, phi4, mistral\n")
	if got := asked(); len(got) != 0 {
		t.Errorf("the model was asked for %v", got)
	}

	url, _ = localModels(t)
	env = []string{"OPENAI_BASE_URL=" + url, "OPENAI_API_KEY=", "ANTHROPIC_API_KEY="}
	expect(t, mcpbridge(t, dir, "", env, "chat", "-p", "hello"), 2, "OPENAI_BASE_URL is set, and its server lists no model: give --model NAME\n")
	if r := mcpbridge(t, dir, "", []string{"OPENAI_BASE_URL=http://127.0.0.1:1/v1", "ANTHROPIC_API_KEY="}, "chat", "-p", "hello"); !strings.Contains(r.err, "give --model NAME") || r.code != 2 {
		t.Errorf("a server that does not answer: status %d\n%s", r.code, r.err)
	}
}
