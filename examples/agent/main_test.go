package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
)

// asMain, set in a child's environment, makes this test binary run the
// command itself, so that a test sees its exit status.
const asMain = "MCPBRIDGE_AGENT_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMain) != "" {
		main()
		os.Exit(0)
	}
	os.Exit(proctest.RunWithDemo(m))
}

// The agent of docs/library.md runs end to end: the real OpenAI SDK against a scripted
// Chat Completions endpoint on loopback, the demo server over stdio.
func TestAgentAgainstFakeOpenAI(t *testing.T) {
	var mu sync.Mutex
	var bodies []map[string]any
	replies := []string{
		`{"id":"1","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"add_note","arguments":"{\"title\":\"milk\",\"body\":\"buy milk\"}"}}]}}],"usage":{"prompt_tokens":5,"completion_tokens":5,"total_tokens":10}}`,
		`{"id":"2","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Noted: buy milk."}}],"usage":{"prompt_tokens":5,"completion_tokens":5,"total_tokens":10}}`,
	}
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		data, _ := io.ReadAll(r.Body)
		json.Unmarshal(data, &body)
		mu.Lock()
		n := len(bodies)
		bodies = append(bodies, body)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, replies[min(n, len(replies)-1)])
	}))
	defer fake.Close()
	defer fake.CloseClientConnections()
	t.Setenv("OPENAI_BASE_URL", fake.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("MODEL", "test-model")

	var out bytes.Buffer
	if err := run([]string{"Add a note to buy milk"}, &out); err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(out.String()) != "Noted: buy milk." {
		t.Fatalf("output %q", out.String())
	}
	if len(bodies) != 2 {
		t.Fatalf("%d model turns", len(bodies))
	}
	// The second turn carries the tool's answer from the demo server.
	second, _ := json.Marshal(bodies[1]["messages"])
	if !strings.Contains(string(second), "added note #1: milk") {
		t.Fatalf("the tool result did not reach the model: %s", second)
	}
	tools, _ := json.Marshal(bodies[0]["tools"])
	if !strings.Contains(string(tools), `"add_note"`) {
		t.Fatalf("tools not offered: %s", tools)
	}
}
