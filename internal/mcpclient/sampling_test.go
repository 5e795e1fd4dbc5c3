package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/tool"
)

// scriptedModel answers every request with answer and records the
// requests.
type scriptedModel struct {
	answer llm.Message
	mu     sync.Mutex
	seen   []llm.Request
}

func (m *scriptedModel) Vision() bool { return false }
func (m *scriptedModel) Name() string { return "scripted-1" }

func (m *scriptedModel) Generate(_ context.Context, req llm.Request) (*llm.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seen = append(m.seen, req)
	stop := llm.StopEndTurn
	if len(m.answer.ToolCalls) > 0 {
		stop = llm.StopToolUse
	}
	return &llm.Response{Message: m.answer, StopReason: stop}, nil
}

func (m *scriptedModel) requests() []llm.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]llm.Request(nil), m.seen...)
}

// samplingServer returns a server whose tool ask asks the client's model
// n times at once with params (as input requests, protocol 2026-07-28) and
// says what came back: each answer's model, stop reason and content.
func samplingServer(n int, params *mcp.CreateMessageWithToolsParams) *mcp.Server {
	server := newServer("samples")
	addTool(server, "ask", func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.Params.InputResponses == nil {
			asks := mcp.InputRequestMap{}
			for i := range n {
				asks[fmt.Sprint(i)] = params
			}
			return &mcp.CallToolResult{InputRequests: asks}, nil
		}
		var got []string
		for _, r := range req.Params.InputResponses {
			res := r.(*mcp.CreateMessageWithToolsResult)
			data, _ := json.Marshal(res.Content)
			got = append(got, fmt.Sprintf("%s %s %s", res.Model, res.StopReason, data))
		}
		return textResult(strings.Join(got, "\n")), nil
	})
	return server
}

func question(text string) []*mcp.SamplingMessageV2 {
	return []*mcp.SamplingMessageV2{{Role: "user", Content: []mcp.Content{&mcp.TextContent{Text: text}}}}
}

// Sampling answered by the host's model: the server's system prompt is
// the request's own, its model preferences reach Approve and not the model,
// and the tokens are capped.
func TestSampling(t *testing.T) {
	model := &scriptedModel{answer: llm.Message{Parts: []tool.Part{tool.TextPart{Text: "Paris."}}}}
	var approved []*mcpclient.SamplingRequest
	server := samplingServer(1, &mcp.CreateMessageWithToolsParams{
		SystemPrompt: "You are terse.", MaxTokens: 100000, Messages: question("Capital of France?"),
		ModelPreferences: &mcp.ModelPreferences{Hints: []*mcp.ModelHint{{Name: "claude"}}, SpeedPriority: 0.8},
	})
	p, _ := inProcess(t, server, mcpclient.WithSampling(mcpclient.Sampling{Model: model, MaxTokens: 500,
		Approve: func(_ context.Context, req *mcpclient.SamplingRequest) error {
			approved = append(approved, req)
			return nil
		}}))
	got, err := callText(context.Background(), p, "ask", nil)
	if err != nil || got != `scripted-1 endTurn [{"type":"text","text":"Paris."}]` {
		t.Fatalf("got %q, %v", got, err)
	}
	reqs := model.requests()
	if len(reqs) != 1 || reqs[0].System != "You are terse." || reqs[0].MaxTokens != 500 || len(reqs[0].Messages) != 1 ||
		reqs[0].Messages[0].Text() != "Capital of France?" || len(reqs[0].Tools) != 0 {
		t.Fatalf("the model was sent %+v", reqs)
	}
	if len(approved) != 1 || approved[0].Server != "notes" || approved[0].Tool != "ask" || approved[0].MaxTokens != 100000 ||
		approved[0].ModelHints[0] != "claude" || approved[0].SpeedPriority != 0.8 {
		t.Fatalf("approved %+v", approved)
	}
}

// Sampling is off unless the host turns it on; on, what Approve refuses,
// a request past the bound of a call, and a request for the host's
// context are refused.
func TestSamplingRefusals(t *testing.T) {
	ctx := context.Background()
	params := &mcp.CreateMessageWithToolsParams{MaxTokens: 10, Messages: question("hi")}
	p, _ := inProcess(t, samplingServer(1, params))
	if _, err := callText(ctx, p, "ask", nil); err == nil || !strings.Contains(err.Error(), "does not support CreateMessage") {
		t.Fatalf("sampling off: %v", err)
	}
	model := &scriptedModel{answer: llm.Message{Parts: []tool.Part{tool.TextPart{Text: "ok"}}}}
	no := func(context.Context, *mcpclient.SamplingRequest) error { return errors.New("not now") }
	p, _ = inProcess(t, samplingServer(1, params), mcpclient.WithSampling(mcpclient.Sampling{Model: model, Approve: no}))
	if _, err := callText(ctx, p, "ask", nil); err == nil || !strings.Contains(err.Error(), "the user rejected the sampling request: not now") {
		t.Fatalf("refused by Approve: %v", err)
	}
	p, _ = inProcess(t, samplingServer(3, params), mcpclient.WithSampling(mcpclient.Sampling{Model: model, MaxRequests: 2}))
	if _, err := callText(ctx, p, "ask", nil); err == nil || !strings.Contains(err.Error(), "more than 2 sampling requests during one tool call") {
		t.Fatalf("three requests in a call of two: %v", err)
	}
	context := &mcp.CreateMessageWithToolsParams{MaxTokens: 10, Messages: question("hi"), IncludeContext: "allServers"}
	p, _ = inProcess(t, samplingServer(1, context), mcpclient.WithSampling(mcpclient.Sampling{Model: model}))
	if _, err := callText(ctx, p, "ask", nil); err == nil || !strings.Contains(err.Error(), `includeContext "allServers"`) {
		t.Fatalf("includeContext: %v", err)
	}
	if n := len(model.requests()); n != 2 {
		t.Fatalf("the model was asked %d times; want the 2 requests within the bound", n)
	}
	var ce *mcpclient.ConfigError
	for _, s := range []mcpclient.Sampling{{}, {Model: model, MaxTokens: -1}, {Model: model, MaxRequests: -1}} {
		bad := mcpclient.FromServer("bad", newServer("x"), mcpclient.WithSampling(s))
		if err := bad.Connect(ctx); !errors.As(err, &ce) || ce.Option != "sampling" {
			t.Errorf("Connect with %+v: %v", s, err)
		}
	}
}

// Tools in sampling: the server's tools are offered to the model, and its
// calls go back to the server only past the same gates as a host's own: a
// tool offered, arguments that fit, and CheckTool.
func TestSamplingWithTools(t *testing.T) {
	weather := &mcp.Tool{Name: "get_weather", Description: "Weather in a city.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}
	history := []*mcp.SamplingMessageV2{
		{Role: "user", Content: []mcp.Content{&mcp.TextContent{Text: "Weather in Paris and Oslo?"}}},
		{Role: "assistant", Content: []mcp.Content{&mcp.ToolUseContent{ID: "u1", Name: "get_weather", Input: map[string]any{"city": "Paris"}}}},
		{Role: "user", Content: []mcp.Content{&mcp.ToolResultContent{ToolUseID: "u1", Content: []mcp.Content{&mcp.TextContent{Text: "18°C"}}}}},
	}
	params := &mcp.CreateMessageWithToolsParams{MaxTokens: 100, Messages: history, Tools: []*mcp.Tool{weather}}
	call := func(name, args string) llm.Message {
		return llm.Message{ToolCalls: []llm.ToolCall{{ID: "u2", Name: name, Arguments: json.RawMessage(args)}}}
	}
	var checked []string
	check := func(_ context.Context, name string, args json.RawMessage) error {
		checked = append(checked, name+" "+string(args))
		if strings.Contains(string(args), "Mordor") {
			return errors.New("denied by policy")
		}
		return nil
	}
	ctx := context.Background()
	model := &scriptedModel{answer: call("get_weather", `{"city":"Oslo"}`)}
	p, _ := inProcess(t, samplingServer(1, params), mcpclient.WithSampling(mcpclient.Sampling{Model: model, CheckTool: check}))
	got, err := callText(ctx, p, "ask", nil)
	if err != nil || got != `scripted-1 toolUse [{"type":"tool_use","id":"u2","name":"get_weather","input":{"city":"Oslo"}}]` {
		t.Fatalf("got %q, %v", got, err)
	}
	sent := model.requests()[0]
	if len(sent.Tools) != 1 || sent.Tools[0].Name != "get_weather" || len(sent.Messages) != 3 ||
		sent.Messages[1].ToolCalls[0].Name != "get_weather" || sent.Messages[2].Role != llm.RoleTool || sent.Messages[2].Text() != "18°C" {
		t.Fatalf("the model was sent %+v", sent)
	}
	for answer, want := range map[string]string{
		`{"city":"Mordor"}`: "was refused: denied by policy",
		`{"town":"Oslo"}`:   `the model's call of "get_weather"`,
	} {
		model.answer = call("get_weather", answer)
		if _, err := callText(ctx, p, "ask", nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", answer, err, want)
		}
	}
	model.answer = call("delete_everything", `{}`)
	if _, err := callText(ctx, p, "ask", nil); err == nil || !strings.Contains(err.Error(), "which the request did not offer") {
		t.Errorf("a tool not offered: %v", err)
	}
	if len(checked) != 2 {
		t.Errorf("CheckTool saw %v; want the calls that passed the other gates", checked)
	}
	// Tool results that do not answer the tool uses are invalid params.
	unanswered := &mcp.CreateMessageWithToolsParams{MaxTokens: 100, Messages: history[:2], Tools: []*mcp.Tool{weather}}
	p, _ = inProcess(t, samplingServer(1, unanswered), mcpclient.WithSampling(mcpclient.Sampling{Model: model}))
	if _, err := callText(ctx, p, "ask", nil); err == nil || !strings.Contains(err.Error(), "tool uses have no results") {
		t.Errorf("unanswered tool uses: %v", err)
	}
}
