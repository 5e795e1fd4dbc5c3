package agent_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpbridge/mcpbridge/agent"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/llm/openai"
	"github.com/mcpbridge/mcpbridge/policy"
	"github.com/mcpbridge/mcpbridge/tool"
)

// responsesFake is the Responses API on loopback, answering each request
// with the next of its answers (output items) and keeping the requests.
type responsesFake struct {
	*httptest.Server
	mu       sync.Mutex
	answers  []string
	requests []map[string]json.RawMessage
}

func startResponsesFake(t *testing.T, answers ...string) *responsesFake {
	f := &responsesFake{answers: answers}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		var body map[string]json.RawMessage
		data, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/v1/responses" || json.Unmarshal(data, &body) != nil || len(f.requests) >= len(f.answers) {
			t.Errorf("unexpected request %d: %s %s", len(f.requests), r.URL.Path, data)
			http.Error(w, `{"error": {"message": "unexpected"}}`, http.StatusBadRequest)
			return
		}
		answer := f.answers[len(f.requests)]
		f.requests = append(f.requests, body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id": "resp_1", "object": "response", "status": "completed", "output": `+answer+`}`)
	}))
	t.Cleanup(f.Close)
	return f
}

// searchOutput returns the names of the tools that the tool_search_output
// answering call loads in request i.
func (f *responsesFake) searchOutput(t *testing.T, i int, call string) []string {
	t.Helper()
	var items []struct {
		Type   string `json:"type"`
		CallID string `json:"call_id"`
		Tools  []struct {
			Name         string `json:"name"`
			DeferLoading bool   `json:"defer_loading"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(f.requests[i]["input"], &items); err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.Type == "tool_search_output" && it.CallID == call {
			var names []string
			for _, d := range it.Tools {
				if !d.DeferLoading {
					t.Errorf("%s loaded without defer_loading", d.Name)
				}
				names = append(names, d.Name)
			}
			return names
		}
	}
	t.Fatalf("request %d answers no search %s", i, call)
	return nil
}

// With an OpenAI model that has tool search (openai.Options.DeferTools),
// progressive disclosure goes by the Responses API end to end: find_tools
// is the model's tool_search, its hits are loaded into the model's context
// by a tool_search_output, and the model calls a found tool on its next
// step. The policy gates what is loaded as under Anthropic's deferral: a
// denied tool is neither sent nor loaded, and a call of it is refused.
func TestDisclosureDeferredToOpenAI(t *testing.T) {
	var (
		mu  sync.Mutex
		ran []string
	)
	handler := tool.HandlerFunc(func(_ context.Context, name string, _ json.RawMessage) (tool.Reply, error) {
		mu.Lock()
		defer mu.Unlock()
		ran = append(ran, name)
		return tool.Text("ran " + name), nil
	})
	deny, err := policy.New(policy.Config{Deny: []string{"service000_action"}})
	if err != nil {
		t.Fatal(err)
	}
	api := startResponsesFake(t,
		`[{"type": "tool_search_call", "id": "ts_1", "call_id": "s1", "execution": "client", "status": "completed", "arguments": {"query": "weather"}},
		  {"type": "tool_search_call", "id": "ts_2", "call_id": "s2", "execution": "client", "status": "completed", "arguments": {"query": "service000 action 0"}}]`,
		`[{"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "weather_now", "arguments": "{\"city\":\"Montreal\"}", "status": "completed"},
		  {"type": "function_call", "id": "fc_2", "call_id": "c2", "name": "service000_action", "arguments": "{\"query\":\"x\"}", "status": "completed"}]`,
		`[{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "sunny", "annotations": []}]}]`)
	model, err := openai.New("gpt-5.4", &openai.Options{BaseURL: api.URL + "/v1", APIKey: "sk-test", HTTPClient: api.Client(), DeferTools: true})
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Config{Model: model, Policy: deny, Mode: agent.ModeDisclosure,
		Tools: []tool.Source{tool.Set{Definitions: catalog201(false), Handler: handler}}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(context.Background(), []llm.Message{llm.UserText("weather?")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "sunny" || res.Steps != 3 {
		t.Fatalf("answer %q in %d steps, want sunny in 3", res.Text, res.Steps)
	}
	var tools []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	}
	if err := json.Unmarshal(api.requests[0]["tools"], &tools); err != nil {
		t.Fatal(err)
	}
	if len(tools) != 1 || tools[0].Type != "tool_search" {
		t.Fatalf("first request's tools: %+v, want the tool_search alone", tools)
	}
	if got := api.searchOutput(t, 1, "s1"); !slices.Equal(got, []string{"weather_now"}) {
		t.Errorf("the search for weather loads %v, want weather_now", got)
	}
	if got := api.searchOutput(t, 1, "s2"); len(got) == 0 || slices.Contains(got, "service000_action") {
		t.Errorf("the search for service000 action 0 loads %v: want hits, and no denied tool", got)
	}
	for i, req := range api.requests[:2] {
		if strings.Contains(string(req["input"])+string(req["tools"]), `"service000_action"`) {
			t.Errorf("request %d sends the denied tool", i)
		}
	}
	if got := toolResult(t, res.Messages, "c1").Text(); got != "ran weather_now" {
		t.Errorf("weather_now's call: %q", got)
	}
	if denied := toolResult(t, res.Messages, "c2"); !denied.IsError || slices.Contains(ran, "service000_action") {
		t.Errorf("the denied tool's call: %q, ran %v", denied.Text(), ran)
	}
}
