package openai_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/option"

	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/llm/internal/fakeapi"
	"github.com/mcpbridge/mcpbridge/llm/openai"
	"github.com/mcpbridge/mcpbridge/tool"
)

type (
	opt      = func(*openai.Options)
	exchange = fakeapi.Exchange[opt]
	opts     = []opt
)

// chatCompletions is the Chat Completions API as the fake plays it.
var chatCompletions = fakeapi.API{
	Path: "/v1/chat/completions",
	Headers: func(t *testing.T, h http.Header) {
		if got := h.Get("Authorization"); got != "Bearer "+fakeapi.Key {
			t.Errorf("Authorization = %q", got)
		}
	},
	Unexpected: `{"error":{"message":"unexpected"}}`,
}

// vendor is this package as the shared tests drive it.
var vendor = fakeapi.Vendor[opt]{
	Name: "openai",
	Done: doneAnswer,
	API:  chatCompletions,
	New: func(model string, opts ...opt) (llm.Model, error) {
		var o openai.Options
		for _, f := range opts {
			f(&o)
		}
		return openai.New(model, &o)
	},
	NoVision:   func(o *openai.Options) { o.TextOnly = true },
	HTTPClient: func(c *http.Client) opt { return func(o *openai.Options) { o.HTTPClient = c } },
	SDKClient: func(c *http.Client) opt {
		return func(o *openai.Options) { o.RequestOptions = append(o.RequestOptions, option.WithHTTPClient(c)) }
	},
	On: func(srv *fakeapi.Server) []opt {
		return opts{
			func(o *openai.Options) { o.BaseURL = srv.URL + "/v1" },
			func(o *openai.Options) { o.APIKey = fakeapi.Key },
			func(o *openai.Options) { o.RequestOptions = append(o.RequestOptions, option.WithMaxRetries(0)) },
		}
	},
}

// answer is a chat completion of one choice, message, finished for finish,
// with usage.
func answer(message, finish, usage string) string {
	return `{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "test-model",
		"choices": [{"index": 0, "finish_reason": "` + finish + `", "message": ` + message + `}],
		"usage": ` + usage + `}`
}

var doneAnswer = answer(`{"role": "assistant", "content": "Done."}`, "stop", "null")

// The function tools of fakeapi.Tools as they go on the wire.
var (
	weatherWire = `{"type": "function", "function": {"name": "get_weather", "description": "Weather in a city.", "parameters": ` + fakeapi.WeatherSchema + `}}`
	timeWire    = `{"type": "function", "function": {"name": "get_time", "parameters": {"type": "object", "properties": {}}}}`
)

// toolTurnWire is how fakeapi.ToolTurn goes on the wire, with images as the
// user message that carries the screenshot's image, if any.
func toolTurnWire(images string) string {
	return `{"role": "user", "content": "Weather in Paris, and show me the screen."},
		{"role": "assistant", "content": "Checking.", "tool_calls": [
			{"id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
			{"id": "call_b", "type": "function", "function": {"name": "screenshot", "arguments": "{}"}},
			{"id": "call_c", "type": "function", "function": {"name": "delete_all", "arguments": "{}"}}
		]},
		{"role": "tool", "tool_call_id": "call_b", "content": "The screen:\n[image]"},
		{"role": "tool", "tool_call_id": "call_a", "content": "20°C"},
		{"role": "tool", "tool_call_id": "call_c", "content": "refused by policy"},` + images + `
		{"role": "user", "content": "Be quick."}`
}

const imageWire = `{"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgpmYWtl"}}`

func TestChatCompletions(t *testing.T) {
	// For the row without a key: the SDK would read one here.
	t.Setenv("OPENAI_API_KEY", "")
	strictSchema := `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`
	strictTools := []tool.Definition{{Name: "get_weather", InputSchema: json.RawMessage(strictSchema), Strict: true}}
	vendor.Exchanges(t, exchange{
		Name:    "plain text",
		Opts:    opts{func(o *openai.Options) { o.MaxTokens = 100 }},
		Request: fakeapi.Hello(),
		Step: fakeapi.Step{
			Want: map[string]string{
				"model":                 `"test-model"`,
				"messages":              `[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hello."}]`,
				"max_completion_tokens": `100`,
				"temperature":           `0.5`,
				"tools":                 `null`,
			},
			Answer: answer(`{"role": "assistant", "content": "Hello!", "refusal": null}`, "stop",
				`{"prompt_tokens": 20, "completion_tokens": 3, "total_tokens": 23, "prompt_tokens_details": {"cached_tokens": 16}}`),
		},
		Want: fakeapi.Reply("Hello!", nil, llm.StopEndTurn, "stop", llm.Usage{InputTokens: 20, OutputTokens: 3, CachedInputTokens: 16}),
	}, exchange{
		Name: "parallel tool calls",
		Opts: opts{func(o *openai.Options) { o.MaxTokens = 100 }},
		// The request's limit takes precedence over the model's.
		Request: llm.Request{MaxTokens: 50, Messages: []llm.Message{llm.UserText("Weather and time in Paris?")}, Tools: fakeapi.Tools()},
		Step: fakeapi.Step{
			Want: map[string]string{"tools": `[` + weatherWire + `, ` + timeWire + `]`, "max_completion_tokens": `50`},
			// The schema is passed through byte for byte.
			Holds: `"parameters":` + fakeapi.WeatherSchema,
			Answer: answer(`{"role": "assistant", "content": null, "tool_calls": [
				{"id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
				{"id": "call_b", "type": "function", "function": {"name": "get_time", "arguments": ""}},
				{"id": "call_c", "type": "function", "function": {"name": "get_weather", "arguments": "\"{\\\"city\\\":\\\"Rome\\\"}\""}}
			]}`, "tool_calls", `{"prompt_tokens": 50, "completion_tokens": 30, "total_tokens": 80}`),
		},
		Want: fakeapi.Reply("", []llm.ToolCall{
			{ID: "call_a", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
			{ID: "call_b", Name: "get_time", Arguments: json.RawMessage(`{}`)},
			// Arguments stringified by the model are unwrapped.
			{ID: "call_c", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Rome"}`)},
		}, llm.StopToolUse, "tool_calls", llm.Usage{InputTokens: 50, OutputTokens: 30}),
	}, exchange{
		// A definition lowered to strict mode goes with "strict": true.
		Name:    "strict",
		Request: llm.Request{Messages: fakeapi.Question().Messages, Tools: strictTools},
		Step: fakeapi.Step{
			Want:   map[string]string{"tools": `[{"type": "function", "function": {"name": "get_weather", "parameters": ` + strictSchema + `, "strict": true}}]`},
			Answer: doneAnswer,
		},
	}, exchange{
		Name:    "strict off",
		Opts:    opts{func(o *openai.Options) { o.NoStrict = true }},
		Request: llm.Request{Messages: fakeapi.Question().Messages, Tools: strictTools},
		Step: fakeapi.Step{
			Want:   map[string]string{"tools": `[{"type": "function", "function": {"name": "get_weather", "parameters": ` + strictSchema + `}}]`},
			Answer: doneAnswer,
		},
	}, exchange{
		Name:    "legacy max tokens",
		Opts:    opts{func(o *openai.Options) { o.MaxTokens = 100 }, func(o *openai.Options) { o.LegacyMaxTokens = true }},
		Request: fakeapi.Question(),
		Step:    fakeapi.Step{Want: map[string]string{"max_tokens": `100`, "max_completion_tokens": `null`}, Answer: doneAnswer},
	}, exchange{
		// A negative limit lifts the model's: none is sent.
		Name:    "no limit",
		Opts:    opts{func(o *openai.Options) { o.MaxTokens = 100 }},
		Request: llm.Request{MaxTokens: -1, Messages: fakeapi.Question().Messages},
		Step:    fakeapi.Step{Want: map[string]string{"max_tokens": `null`, "max_completion_tokens": `null`}, Answer: doneAnswer},
	}, exchange{
		// The images of a tool result wait for the run of tool messages to end.
		Name:    "tool results with an image",
		Request: llm.Request{Messages: fakeapi.ToolTurn()},
		Step: fakeapi.Step{
			Want: map[string]string{"messages": `[
				{"role": "user", "content": [{"type": "text", "text": "Look:"}, ` + imageWire + `]},
				` + toolTurnWire(`
				{"role": "user", "content": [
					{"type": "text", "text": "The images of the result of tool call call_b (screenshot), in the order of its [image] marks:"},
					`+imageWire+`
				]},`) + `
			]`},
			Answer: doneAnswer,
		},
		Want: fakeapi.Reply("Done.", nil, llm.StopEndTurn, "stop", llm.Usage{}),
	}, exchange{
		// A local server (Ollama, llama.cpp) needs no key: without one, none
		// is sent.
		Name:    "no key",
		Opts:    opts{func(o *openai.Options) { o.APIKey = "" }},
		Request: fakeapi.Question(),
		Step: fakeapi.Step{
			Headers: func(t *testing.T, h http.Header) {
				if auth := h.Get("Authorization"); auth != "" {
					t.Errorf("Authorization = %q, want none", auth)
				}
			},
			Answer: doneAnswer,
		},
	}, exchange{
		Name:    "no vision",
		Opts:    opts{func(o *openai.Options) { o.TextOnly = true }},
		Request: llm.Request{Messages: fakeapi.ToolTurn()},
		Step: fakeapi.Step{
			Want:   map[string]string{"messages": `[{"role": "user", "content": "Look:\n[image]"}, ` + toolTurnWire("") + `]`},
			Answer: doneAnswer,
		},
	})
}

func TestStopReasons(t *testing.T) {
	vendor.Exchanges(t, exchange{
		Name:    "refusal",
		Request: fakeapi.Question(),
		Step:    fakeapi.Step{Answer: answer(`{"role": "assistant", "content": null, "refusal": "I can't help with that."}`, "stop", "null")},
		Want:    fakeapi.Reply("I can't help with that.", nil, llm.StopRefusal, "stop", llm.Usage{}),
	}, exchange{
		Name:    "content filter",
		Request: fakeapi.Question(),
		Step:    fakeapi.Step{Answer: answer(`{"role": "assistant", "content": ""}`, "content_filter", "null")},
		Want:    fakeapi.Reply("", nil, llm.StopRefusal, "content_filter", llm.Usage{}),
	}, exchange{
		Name:    "length",
		Request: fakeapi.Question(),
		Step:    fakeapi.Step{Answer: answer(`{"role": "assistant", "content": "Once upon"}`, "length", "null")},
		Want:    fakeapi.Reply("Once upon", nil, llm.StopMaxTokens, "length", llm.Usage{}),
	}, exchange{
		// Some local servers say "stop" with tool calls, and leave IDs out.
		Name:    "tool calls with stop",
		Request: fakeapi.Question(),
		Step: fakeapi.Step{Answer: answer(`{"role": "assistant", "tool_calls": [
			{"type": "function", "function": {"name": "f", "arguments": "{}"}}]}`, "stop", "null")},
		Want: fakeapi.Reply("", []llm.ToolCall{{ID: "call_0", Name: "f", Arguments: json.RawMessage(`{}`)}},
			llm.StopToolUse, "stop", llm.Usage{}),
	})
}

func TestAPIError(t *testing.T) {
	vendor.Exchanges(t, exchange{
		// OpenAI echoes a rejected key back, masked.
		Name:    "401",
		Request: fakeapi.Question(),
		Step: fakeapi.Step{Status: http.StatusUnauthorized, Answer: `{"error": {
			"message": "Incorrect API key provided: sk-test-****************cret. You can find your API key at https://platform.openai.com/account/api-keys.",
			"type": "invalid_request_error", "param": null, "code": "invalid_api_key"}}`},
		WantError: &llm.APIError{StatusCode: 401, Type: "invalid_request_error", Code: "invalid_api_key",
			Message: "Incorrect API key provided: ***. You can find your API key at https://platform.openai.com/account/api-keys."},
	}, exchange{
		Name:    "429",
		Request: fakeapi.Question(),
		Step: fakeapi.Step{Status: http.StatusTooManyRequests, Answer: `{"error": {
			"message": "Rate limit reached for test-model.", "type": "requests", "param": null, "code": "rate_limit_exceeded"}}`},
		WantError: &llm.APIError{StatusCode: 429, Type: "requests", Code: "rate_limit_exceeded", Message: "Rate limit reached for test-model."},
	})
}

func TestNewChecks(t *testing.T) {
	vendor.Refuses(t, map[string]opt{
		"BaseURL":       func(o *openai.Options) { o.BaseURL = "localhost:11434" },
		"MaxRetries -1": func(o *openai.Options) { o.MaxRetries = -1 },
	})
}

func TestPromises(t *testing.T) { vendor.Promises(t) }

// chunks is a streamed chat completion: each chunk's choices (a JSON array)
// and, for the last, the usage.
func chunks(choices ...string) string {
	var b strings.Builder
	for _, c := range choices {
		b.WriteString(`data: {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "test-model", "choices": ` + c + "}\n\n")
	}
	b.WriteString(`data: {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "test-model", "choices": [], ` +
		`"usage": {"prompt_tokens": 20, "completion_tokens": 15, "total_tokens": 35}}` + "\n\ndata: [DONE]\n\n")
	return b.String()
}

// A request with OnText is streamed, asking for the usage: its text goes to
// OnText piece by piece as it arrives, and the response is what the same
// answer unstreamed makes, tool calls (their arguments sent in pieces) and
// usage included.
func TestStream(t *testing.T) {
	vendor.Exchanges(t, exchange{
		Name:    "text and a tool call",
		Request: llm.Request{Messages: fakeapi.Question().Messages, Tools: fakeapi.Tools()},
		Deltas:  []string{"Checking", " Paris."},
		Step: fakeapi.Step{
			Want:   map[string]string{"stream": `true`, "stream_options": `{"include_usage": true}`},
			Stream: true,
			Answer: chunks(
				`[{"index": 0, "delta": {"role": "assistant", "content": "Checking"}, "finish_reason": null}]`,
				`[{"index": 0, "delta": {"content": " Paris."}, "finish_reason": null}]`,
				`[{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]}, "finish_reason": null}]`,
				`[{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\"city\":"}}]}, "finish_reason": null}]`,
				`[{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "\"Paris\"}"}}]}, "finish_reason": null}]`,
				`[{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]`),
		},
		Want: fakeapi.Reply("Checking Paris.", []llm.ToolCall{{ID: "call_a", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}},
			llm.StopToolUse, "tool_calls", llm.Usage{InputTokens: 20, OutputTokens: 15}),
	}, exchange{
		Name:    "refusal",
		Request: fakeapi.Question(),
		Deltas:  []string{"I can't", " help."},
		Step: fakeapi.Step{Stream: true, Answer: chunks(
			`[{"index": 0, "delta": {"role": "assistant", "refusal": "I can't"}, "finish_reason": null}]`,
			`[{"index": 0, "delta": {"refusal": " help."}, "finish_reason": "stop"}]`)},
		Want: fakeapi.Reply("I can't help.", nil, llm.StopRefusal, "stop", llm.Usage{InputTokens: 20, OutputTokens: 15}),
	}, exchange{
		Name:    "refused before the stream",
		Request: fakeapi.Question(),
		Deltas:  []string{},
		Step: fakeapi.Step{Status: http.StatusTooManyRequests, Answer: `{"error": {
			"message": "Rate limit reached for test-model.", "type": "requests", "param": null, "code": "rate_limit_exceeded"}}`},
		WantError: &llm.APIError{StatusCode: 429, Type: "requests", Code: "rate_limit_exceeded", Message: "Rate limit reached for test-model."},
	})
}

// Nil Options are the defaults.
func TestNilOptions(t *testing.T) {
	m, err := openai.New("gpt-4.1", nil)
	if err != nil || !m.Vision() || m.Name() != "gpt-4.1" {
		t.Fatalf("New with nil Options: %v, %v", m, err)
	}
}

// Without DeferTools, Chat Completions defers no tools: a request with
// deferred tools is refused before anything is sent, naming the option.
func TestDeferredToolsRefused(t *testing.T) {
	m, err := openai.New("gpt-4.1", &openai.Options{APIKey: fakeapi.Key, BaseURL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	if m.DefersTools() {
		t.Fatal("DefersTools without Options.DeferTools")
	}
	_, err = m.Generate(t.Context(), llm.Request{Messages: fakeapi.Question().Messages, Deferred: fakeapi.Tools()})
	if err == nil || !strings.Contains(err.Error(), "2 deferred tools") || !strings.Contains(err.Error(), "Options.DeferTools") {
		t.Fatalf("deferred tools: %v", err)
	}
}
