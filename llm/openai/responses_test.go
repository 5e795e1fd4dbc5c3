package openai_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/llm/internal/fakeapi"
	"github.com/mcpbridge/mcpbridge/llm/openai"
	"github.com/mcpbridge/mcpbridge/tool"
)

// deferring is this package with Options.DeferTools, against the Responses
// API as the fake plays it.
var deferring = func() fakeapi.Vendor[opt] {
	v := vendor
	v.API.Path = "/v1/responses"
	v.Done = responseAnswer("completed", `[`+textItem("Done.")+`]`, "null")
	on := v.On
	v.On = func(srv *fakeapi.Server) []opt {
		return append(on(srv), func(o *openai.Options) { o.DeferTools = true })
	}
	return v
}()

// responseAnswer is a response of status, its output items (a JSON array)
// and usage.
func responseAnswer(status, output, usage string) string {
	return `{"id": "resp_1", "object": "response", "created_at": 1, "model": "test-model",
		"status": "` + status + `", "output": ` + output + `, "usage": ` + usage + `}`
}

// incomplete is a response cut for reason.
func incomplete(reason, output string) string {
	return `{"id": "resp_1", "object": "response", "created_at": 1, "model": "test-model", "status": "incomplete",
		"incomplete_details": {"reason": "` + reason + `"}, "output": ` + output + `, "usage": null}`
}

func textItem(text string) string {
	return `{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
		"content": [{"type": "output_text", "text": "` + text + `", "annotations": []}]}`
}

// The function tools of fakeapi.Tools as they go on the wire; "strict" is
// always sent, since the Responses API takes its absence as true.
var (
	weatherFn = `{"type": "function", "name": "get_weather", "description": "Weather in a city.", "parameters": ` + fakeapi.WeatherSchema + `, "strict": false}`
	timeFn    = `{"type": "function", "name": "get_time", "parameters": {"type": "object", "properties": {}}, "strict": false}`
)

// fnImage is the PNG of fakeapi as an input_image of a tool's output.
const fnImage = `{"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgpmYWtl"}`

// toolTurnInput is how fakeapi.ToolTurn goes on the wire after its first
// message, with screenshot the output of the screenshot's call.
func toolTurnInput(screenshot string) string {
	return `{"role": "user", "content": "Weather in Paris, and show me the screen."},
		{"role": "assistant", "content": "Checking."},
		{"type": "function_call", "call_id": "call_a", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}"},
		{"type": "function_call", "call_id": "call_b", "name": "screenshot", "arguments": "{}"},
		{"type": "function_call", "call_id": "call_c", "name": "delete_all", "arguments": "{}"},
		{"type": "function_call_output", "call_id": "call_b", "output": ` + screenshot + `},
		{"type": "function_call_output", "call_id": "call_a", "output": "20°C"},
		{"type": "function_call_output", "call_id": "call_c", "output": "refused by policy"},
		{"role": "user", "content": "Be quick."}`
}

// With DeferTools, everything the Chat Completions path carries goes by the
// Responses API: the system prompt, text, tools, calls and their results,
// images where the model takes them, the limits and the usage.
func TestResponses(t *testing.T) {
	strictSchema := `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`
	strictTools := []tool.Definition{{Name: "get_weather", InputSchema: json.RawMessage(strictSchema), Strict: true}}
	deferring.Exchanges(t, exchange{
		Name:    "plain text",
		Opts:    opts{func(o *openai.Options) { o.MaxTokens = 100 }},
		Request: fakeapi.Hello(),
		Step: fakeapi.Step{
			Want: map[string]string{
				"model":             `"test-model"`,
				"store":             `false`,
				"instructions":      `"Be brief."`,
				"input":             `[{"role": "user", "content": "Say hello."}]`,
				"max_output_tokens": `100`,
				"temperature":       `0.5`,
				"tools":             `null`,
			},
			Answer: responseAnswer("completed", `[`+textItem("Hello!")+`]`,
				`{"input_tokens": 20, "input_tokens_details": {"cached_tokens": 16}, "output_tokens": 3, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 23}`),
		},
		Want: fakeapi.Reply("Hello!", nil, llm.StopEndTurn, "completed", llm.Usage{InputTokens: 20, OutputTokens: 3, CachedInputTokens: 16}),
	}, exchange{
		Name:    "parallel tool calls",
		Request: llm.Request{MaxTokens: -1, Messages: []llm.Message{llm.UserText("Weather and time in Paris?")}, Tools: fakeapi.Tools()},
		Step: fakeapi.Step{
			Want:  map[string]string{"tools": `[` + weatherFn + `, ` + timeFn + `]`, "max_output_tokens": `null`},
			Holds: `"parameters":` + fakeapi.WeatherSchema,
			Answer: responseAnswer("completed", `[
				{"type": "reasoning", "id": "rs_1", "summary": []},
				{"type": "function_call", "id": "fc_a", "call_id": "call_a", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}", "status": "completed"},
				{"type": "function_call", "id": "fc_b", "call_id": "call_b", "name": "get_time", "arguments": "", "status": "completed"}
			]`, `{"input_tokens": 50, "output_tokens": 30, "total_tokens": 80}`),
		},
		Want: fakeapi.Reply("", []llm.ToolCall{
			{ID: "call_a", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
			{ID: "call_b", Name: "get_time", Arguments: json.RawMessage(`{}`)},
		}, llm.StopToolUse, "completed", llm.Usage{InputTokens: 50, OutputTokens: 30}),
	}, exchange{
		Name:    "strict",
		Request: llm.Request{Messages: fakeapi.Question().Messages, Tools: strictTools},
		Step: fakeapi.Step{
			Want:   map[string]string{"tools": `[{"type": "function", "name": "get_weather", "parameters": ` + strictSchema + `, "strict": true}]`},
			Answer: deferring.Done,
		},
	}, exchange{
		Name:    "strict off",
		Opts:    opts{func(o *openai.Options) { o.NoStrict = true }},
		Request: llm.Request{Messages: fakeapi.Question().Messages, Tools: strictTools},
		Step: fakeapi.Step{
			Want:   map[string]string{"tools": `[{"type": "function", "name": "get_weather", "parameters": ` + strictSchema + `, "strict": false}]`},
			Answer: deferring.Done,
		},
	}, exchange{
		// A function_call_output takes images: they stay with their result.
		Name:    "tool results with an image",
		Request: llm.Request{Messages: fakeapi.ToolTurn()},
		Step: fakeapi.Step{
			Want: map[string]string{"input": `[
				{"role": "user", "content": [{"type": "input_text", "text": "Look:"},
					{"type": "input_image", "detail": "auto", "image_url": "data:image/png;base64,iVBORw0KGgpmYWtl"}]},
				` + toolTurnInput(`[{"type": "input_text", "text": "The screen:"}, `+fnImage+`]`) + `
			]`},
			Answer: deferring.Done,
		},
		Want: fakeapi.Reply("Done.", nil, llm.StopEndTurn, "completed", llm.Usage{}),
	}, exchange{
		Name:    "no vision",
		Opts:    opts{func(o *openai.Options) { o.TextOnly = true }},
		Request: llm.Request{Messages: fakeapi.ToolTurn()},
		Step: fakeapi.Step{
			Want:   map[string]string{"input": `[{"role": "user", "content": "Look:\n[image]"}, ` + toolTurnInput(`"The screen:\n[image]"`) + `]`},
			Answer: deferring.Done,
		},
	})
}

// The search tool, the first of Request.Tools when tools are deferred,
// goes as a client-executed tool_search; the model's tool_search_call
// comes back as a call of it; and the result of each such call goes back
// as a tool_search_output holding the definitions of the deferred tools it
// references, and of those alone.
func TestResponsesDeferredTools(t *testing.T) {
	search := tool.Definition{Name: "find_tools", Description: "Search the tools.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`)}
	pinned := tool.Definition{Name: "load_skill"}
	find := llm.ToolCall{ID: "call_f", Name: "find_tools", Arguments: json.RawMessage(`{"query":"weather"}`)}
	found := llm.ToolResult(find, tool.Text("get_weather: Weather in a city.\ndelete_all: Delete everything."))
	// delete_all is not deferred (a policy denies it, say): it is not loaded.
	found.References = []string{"get_weather", "delete_all", "get_weather"}
	none := llm.ToolCall{ID: "call_n", Name: "find_tools", Arguments: json.RawMessage(`{"query":"zzz"}`)}
	weather := llm.ToolCall{ID: "call_w", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}
	req := llm.Request{
		Messages: []llm.Message{
			llm.UserText("Weather in Paris?"),
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{find, none}},
			found,
			llm.ToolResult(none, tool.Text(`No tool matches "zzz".`)),
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{weather}},
			llm.ToolResult(weather, tool.Text("20°C")),
		},
		Tools:    []tool.Definition{search, pinned},
		Deferred: fakeapi.Tools(),
	}
	deferring.Exchanges(t, exchange{
		Name:    "search, load and call",
		Request: req,
		Step: fakeapi.Step{
			Want: map[string]string{
				"tools": `[
					{"type": "tool_search", "execution": "client", "description": "Search the tools.",
						"parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}},
					{"type": "function", "name": "load_skill", "parameters": {"type": "object", "properties": {}}, "strict": false}
				]`,
				"input": `[
					{"role": "user", "content": "Weather in Paris?"},
					{"type": "tool_search_call", "call_id": "call_f", "execution": "client", "status": "completed", "arguments": {"query": "weather"}},
					{"type": "tool_search_call", "call_id": "call_n", "execution": "client", "status": "completed", "arguments": {"query": "zzz"}},
					{"type": "tool_search_output", "call_id": "call_f", "execution": "client", "status": "completed", "tools": [
						{"type": "function", "name": "get_weather", "description": "Weather in a city.", "parameters": ` + fakeapi.WeatherSchema + `,
							"strict": false, "defer_loading": true}
					]},
					{"type": "tool_search_output", "call_id": "call_n", "execution": "client", "status": "completed", "tools": []},
					{"type": "function_call", "call_id": "call_w", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}"},
					{"type": "function_call_output", "call_id": "call_w", "output": "20°C"}
				]`,
			},
			Answer: responseAnswer("completed", `[
				{"type": "tool_search_call", "id": "ts_1", "call_id": "call_t", "execution": "client", "status": "completed",
					"arguments": {"query": "time"}},
				{"type": "tool_search_call", "id": "ts_2", "call_id": null, "execution": "server", "status": "completed",
					"arguments": {"paths": ["crm"]}}
			]`, "null"),
		},
		// A search the server ran itself is not the caller's to answer.
		Want: fakeapi.Reply("", []llm.ToolCall{{ID: "call_t", Name: "find_tools", Arguments: json.RawMessage(`{"query": "time"}`)}},
			llm.StopToolUse, "completed", llm.Usage{}),
	})
	// Without deferred tools, nothing is a search: find_tools is a function
	// like any other, and references load nothing.
	req.Deferred = nil
	deferring.Exchanges(t, exchange{
		Name:    "not deferring",
		Request: llm.Request{Messages: req.Messages[:4], Tools: req.Tools},
		Step: fakeapi.Step{
			Want: map[string]string{
				"tools": `[{"type": "function", "name": "find_tools", "description": "Search the tools.",
					"parameters": {"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}, "strict": false},
					{"type": "function", "name": "load_skill", "parameters": {"type": "object", "properties": {}}, "strict": false}]`,
				"input": `[
					{"role": "user", "content": "Weather in Paris?"},
					{"type": "function_call", "call_id": "call_f", "name": "find_tools", "arguments": "{\"query\":\"weather\"}"},
					{"type": "function_call", "call_id": "call_n", "name": "find_tools", "arguments": "{\"query\":\"zzz\"}"},
					{"type": "function_call_output", "call_id": "call_f", "output": "get_weather: Weather in a city.\ndelete_all: Delete everything."},
					{"type": "function_call_output", "call_id": "call_n", "output": "No tool matches \"zzz\"."}
				]`,
			},
			Answer: deferring.Done,
		},
	})
}

func TestResponsesStopReasons(t *testing.T) {
	deferring.Exchanges(t, exchange{
		Name:    "refusal",
		Request: fakeapi.Question(),
		Step: fakeapi.Step{Answer: responseAnswer("completed", `[{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
			"content": [{"type": "refusal", "refusal": "I can't help with that."}]}]`, "null")},
		Want: fakeapi.Reply("I can't help with that.", nil, llm.StopRefusal, "completed", llm.Usage{}),
	}, exchange{
		Name:    "content filter",
		Request: fakeapi.Question(),
		Step:    fakeapi.Step{Answer: incomplete("content_filter", `[]`)},
		Want:    fakeapi.Reply("", nil, llm.StopRefusal, "content_filter", llm.Usage{}),
	}, exchange{
		Name:    "max output tokens",
		Request: fakeapi.Question(),
		Step:    fakeapi.Step{Answer: incomplete("max_output_tokens", `[`+textItem("Once upon")+`]`)},
		Want:    fakeapi.Reply("Once upon", nil, llm.StopMaxTokens, "max_output_tokens", llm.Usage{}),
	}, exchange{
		Name:    "other",
		Request: fakeapi.Question(),
		Step:    fakeapi.Step{Answer: responseAnswer("in_progress", `[]`, "null")},
		Want:    fakeapi.Reply("", nil, llm.StopOther, "in_progress", llm.Usage{}),
	})
}

// A response that failed has no answer to read: it is an error that says
// why.
func TestResponsesFailed(t *testing.T) {
	srv := fakeapi.Start(t, deferring.API, fakeapi.Step{Answer: `{"id": "resp_1", "object": "response", "status": "failed",
		"error": {"code": "server_error", "message": "The model failed."}, "output": []}`})
	_, err := deferring.Model(t, srv).Generate(t.Context(), fakeapi.Question())
	if err == nil || !strings.Contains(err.Error(), "server_error: The model failed.") {
		t.Fatalf("error = %v, want the failure's code and message", err)
	}
}

func TestResponsesAPIError(t *testing.T) {
	deferring.Exchanges(t, exchange{
		Name:    "401",
		Request: fakeapi.Question(),
		Step: fakeapi.Step{Status: http.StatusUnauthorized, Answer: `{"error": {
			"message": "Incorrect API key provided: sk-test-****************cret.",
			"type": "invalid_request_error", "param": null, "code": "invalid_api_key"}}`},
		WantError: &llm.APIError{StatusCode: 401, Type: "invalid_request_error", Code: "invalid_api_key", Message: "Incorrect API key provided: ***."},
	}, exchange{
		Name:    "429",
		Request: fakeapi.Question(),
		Step: fakeapi.Step{Status: http.StatusTooManyRequests, Answer: `{"error": {
			"message": "Rate limit reached for test-model.", "type": "requests", "param": null, "code": "rate_limit_exceeded"}}`},
		WantError: &llm.APIError{StatusCode: 429, Type: "requests", Code: "rate_limit_exceeded", Message: "Rate limit reached for test-model."},
	})
}

func TestResponsesPromises(t *testing.T) { deferring.Promises(t) }

// events is a response's event stream, each event's JSON on one line.
func events(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		var line bytes.Buffer
		if err := json.Compact(&line, []byte(e)); err != nil {
			panic(err)
		}
		b.WriteString("data: " + line.String() + "\n\n")
	}
	return b.String()
}

// A request with OnText is streamed: its text goes to OnText piece by piece
// as it arrives, and the response is the one the last event carries.
func TestResponsesStream(t *testing.T) {
	completed := responseAnswer("completed", `[`+textItem("Checking Paris.")+`,
		{"type": "function_call", "id": "fc_a", "call_id": "call_a", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}", "status": "completed"}]`,
		`{"input_tokens": 20, "output_tokens": 15, "total_tokens": 35}`)
	deferring.Exchanges(t, exchange{
		Name:    "text and a tool call",
		Request: llm.Request{Messages: fakeapi.Question().Messages, Tools: fakeapi.Tools()},
		Deltas:  []string{"Checking", " Paris."},
		Step: fakeapi.Step{
			Want:   map[string]string{"stream": `true`},
			Stream: true,
			Answer: events(
				`{"type": "response.created", "sequence_number": 0, "response": `+responseAnswer("in_progress", "[]", "null")+`}`,
				`{"type": "response.output_text.delta", "sequence_number": 1, "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "Checking"}`,
				`{"type": "response.output_text.delta", "sequence_number": 2, "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": " Paris."}`,
				`{"type": "response.completed", "sequence_number": 3, "response": `+completed+`}`),
		},
		Want: fakeapi.Reply("Checking Paris.", []llm.ToolCall{{ID: "call_a", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}},
			llm.StopToolUse, "completed", llm.Usage{InputTokens: 20, OutputTokens: 15}),
	}, exchange{
		Name:    "refusal",
		Request: fakeapi.Question(),
		Deltas:  []string{"I can't", " help."},
		Step: fakeapi.Step{Stream: true, Answer: events(
			`{"type": "response.refusal.delta", "sequence_number": 1, "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "I can't"}`,
			`{"type": "response.refusal.delta", "sequence_number": 2, "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": " help."}`,
			`{"type": "response.completed", "sequence_number": 3, "response": `+responseAnswer("completed", `[{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
				"content": [{"type": "refusal", "refusal": "I can't help."}]}]`, "null")+`}`)},
		Want: fakeapi.Reply("I can't help.", nil, llm.StopRefusal, "completed", llm.Usage{}),
	}, exchange{
		Name:    "refused before the stream",
		Request: fakeapi.Question(),
		Deltas:  []string{},
		Step: fakeapi.Step{Status: http.StatusTooManyRequests, Answer: `{"error": {
			"message": "Rate limit reached for test-model.", "type": "requests", "param": null, "code": "rate_limit_exceeded"}}`},
		WantError: &llm.APIError{StatusCode: 429, Type: "requests", Code: "rate_limit_exceeded", Message: "Rate limit reached for test-model."},
	})
	// A stream that ends before its response is complete has no answer.
	srv := fakeapi.Start(t, deferring.API, fakeapi.Step{Stream: true, Answer: events(
		`{"type": "response.output_text.delta", "sequence_number": 1, "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "Che"}`)})
	_, err := deferring.Model(t, srv).Generate(t.Context(), llm.Request{Messages: fakeapi.Question().Messages, OnText: func(string) {}})
	if err == nil || !strings.Contains(err.Error(), "ended before it was complete") {
		t.Fatalf("a cut stream: %v", err)
	}
}

// Deferred tools need their search tool, and valid definitions: the
// request is refused before anything is sent.
func TestResponsesDeferredChecks(t *testing.T) {
	m, err := openai.New("gpt-5.4", &openai.Options{APIKey: fakeapi.Key, BaseURL: "http://127.0.0.1:1", DeferTools: true})
	if err != nil {
		t.Fatal(err)
	}
	if !m.DefersTools() {
		t.Fatal("DefersTools is false with Options.DeferTools")
	}
	for want, req := range map[string]llm.Request{
		"no tool to search them": {Messages: fakeapi.Question().Messages, Deferred: fakeapi.Tools()},
		`tool "bad": input schema is not valid JSON`: {Messages: fakeapi.Question().Messages, Tools: []tool.Definition{{Name: "find_tools"}},
			Deferred: []tool.Definition{{Name: "bad", InputSchema: json.RawMessage(`{`)}}},
	} {
		if _, err := m.Generate(t.Context(), req); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Generate = %v, want an error holding %q", err, want)
		}
	}
}
