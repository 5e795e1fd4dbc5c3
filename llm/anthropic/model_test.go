package anthropic_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/llm/anthropic"
	"github.com/mcpbridge/mcpbridge/llm/internal/fakeapi"
	"github.com/mcpbridge/mcpbridge/tool"
)

type (
	opt      = func(*anthropic.Options)
	exchange = fakeapi.Exchange[opt]
	opts     = []opt
)

// vendor is this package as the shared tests drive it, against the Messages
// API as the fake plays it.
var vendor = fakeapi.Vendor[opt]{
	Name: "anthropic",
	Done: doneAnswer,
	API: fakeapi.API{
		Path: "/v1/messages",
		Headers: func(t *testing.T, h http.Header) {
			// The SDK sends the key as a bearer token; the API also takes x-api-key.
			if auth, key := h.Get("Authorization"), h.Get("X-Api-Key"); auth != "Bearer "+fakeapi.Key && key != fakeapi.Key {
				t.Errorf("no API key: Authorization %q, X-Api-Key %q", auth, key)
			}
			if h.Get("Anthropic-Version") == "" {
				t.Error("no anthropic-version header")
			}
		},
		Unexpected: `{"type":"error","error":{"type":"api_error","message":"unexpected"}}`,
	},
	New: func(model string, opts ...opt) (llm.Model, error) {
		var o anthropic.Options
		for _, f := range opts {
			f(&o)
		}
		return anthropic.New(model, &o)
	},
	NoVision:   func(o *anthropic.Options) { o.TextOnly = true },
	HTTPClient: func(c *http.Client) opt { return func(o *anthropic.Options) { o.HTTPClient = c } },
	SDKClient: func(c *http.Client) opt {
		return func(o *anthropic.Options) { o.RequestOptions = append(o.RequestOptions, option.WithHTTPClient(c)) }
	},
	On: func(srv *fakeapi.Server) []opt {
		return opts{
			func(o *anthropic.Options) { o.BaseURL = srv.URL },
			func(o *anthropic.Options) { o.APIKey = fakeapi.Key },
			func(o *anthropic.Options) { o.RequestOptions = append(o.RequestOptions, option.WithMaxRetries(0)) },
		}
	},
}

// answer is a Messages answer of content, stopped for stop, with usage.
func answer(content, stop, usage string) string {
	return `{"id": "msg_1", "type": "message", "role": "assistant", "model": "test-model",
		"content": ` + content + `, "stop_reason": "` + stop + `", "stop_sequence": null,
		"usage": ` + usage + `}`
}

const smallUsage = `{"input_tokens": 1, "output_tokens": 1}`

var doneAnswer = answer(`[{"type": "text", "text": "Done."}]`, "end_turn", smallUsage)

// assistantWire is how ToolTurn's assistant message goes on the wire.
const assistantWire = `{"role": "assistant", "content": [
	{"type": "text", "text": "Checking."},
	{"type": "tool_use", "id": "call_a", "name": "get_weather", "input": {"city": "Paris"}},
	{"type": "tool_use", "id": "call_b", "name": "screenshot", "input": {}},
	{"type": "tool_use", "id": "call_c", "name": "delete_all", "input": {}}
]}`

// toolResultsWire is how ToolTurn's results and last remark go on the wire,
// with image as the screenshot's image block.
func toolResultsWire(image string) string {
	return `{"role": "user", "content": [
		{"type": "tool_result", "tool_use_id": "call_b", "content": [{"type": "text", "text": "The screen:"}, ` + image + `]},
		{"type": "tool_result", "tool_use_id": "call_a", "content": [{"type": "text", "text": "20°C"}]},
		{"type": "tool_result", "tool_use_id": "call_c", "is_error": true, "content": [{"type": "text", "text": "refused by policy"}]},
		{"type": "text", "text": "Be quick."}
	]}`
}

const imageWire = `{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgpmYWtl"}}`

func TestMessages(t *testing.T) {
	vendor.Exchanges(t, exchange{
		Name:    "plain text",
		Opts:    opts{func(o *anthropic.Options) { o.PromptCaching = true }},
		Request: fakeapi.Hello(),
		Step: fakeapi.Step{
			Want: map[string]string{
				"model":       `"test-model"`,
				"max_tokens":  `4096`,
				"system":      `[{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}]`,
				"messages":    `[{"role": "user", "content": [{"type": "text", "text": "Say hello."}]}]`,
				"temperature": `0.5`,
				"tools":       `null`,
			},
			Answer: answer(`[{"type": "text", "text": "Hello!"}]`, "end_turn",
				`{"input_tokens": 4, "output_tokens": 3, "cache_read_input_tokens": 16, "cache_creation_input_tokens": 2}`),
		},
		// Cached input is counted apart by the API, and added up here.
		Want: fakeapi.Reply("Hello!", nil, llm.StopEndTurn, "end_turn",
			llm.Usage{InputTokens: 22, OutputTokens: 3, CachedInputTokens: 16, CacheWriteInputTokens: 2}),
	}, exchange{
		Name:    "parallel tool calls",
		Opts:    opts{func(o *anthropic.Options) { o.MaxTokens = 1000 }},
		Request: llm.Request{Messages: []llm.Message{llm.UserText("Weather and time in Paris?")}, Tools: fakeapi.Tools()},
		Step: fakeapi.Step{
			Want: map[string]string{
				"tools": `[
					{"name": "get_weather", "description": "Weather in a city.", "input_schema": ` + fakeapi.WeatherSchema + `},
					{"name": "get_time", "input_schema": {"type": "object", "properties": {}}}
				]`,
				"max_tokens": `1000`,
			},
			// The schema is passed through byte for byte.
			Holds: `"input_schema":` + fakeapi.WeatherSchema,
			Answer: answer(`[
				{"type": "text", "text": "Let me check."},
				{"type": "tool_use", "id": "call_a", "name": "get_weather", "input": {"city": "Paris"}},
				{"type": "tool_use", "id": "call_b", "name": "get_time", "input": {}},
				{"type": "tool_use", "id": "call_c", "name": "get_weather", "input": "{\"city\": \"Rome\"}"}
			]`, "tool_use", smallUsage),
		},
		Want: fakeapi.Reply("Let me check.", []llm.ToolCall{
			{ID: "call_a", Name: "get_weather", Arguments: json.RawMessage(`{"city": "Paris"}`)},
			{ID: "call_b", Name: "get_time", Arguments: json.RawMessage(`{}`)},
			// Arguments stringified (by a gateway's model) are unwrapped.
			{ID: "call_c", Name: "get_weather", Arguments: json.RawMessage(`{"city": "Rome"}`)},
		}, llm.StopToolUse, "tool_use", llm.Usage{InputTokens: 1, OutputTokens: 1}),
	}, exchange{
		Name: "tool results with an image",
		Opts: opts{func(o *anthropic.Options) { o.MaxTokens = 1000 }},
		// The request's limit takes precedence over the model's.
		Request: llm.Request{System: "Be brief.", MaxTokens: 200, Messages: fakeapi.ToolTurn()},
		Step: fakeapi.Step{
			Want: map[string]string{
				// Without prompt caching the system prompt has no cache_control.
				"system":     `[{"type": "text", "text": "Be brief."}]`,
				"max_tokens": `200`,
				"messages": `[
					{"role": "user", "content": [
						{"type": "text", "text": "Look:"},
						` + imageWire + `,
						{"type": "text", "text": "Weather in Paris, and show me the screen."}
					]},
					` + assistantWire + `,
					` + toolResultsWire(imageWire) + `
				]`,
			},
			Answer: doneAnswer,
		},
	}, exchange{
		Name:    "no vision",
		Opts:    opts{func(o *anthropic.Options) { o.TextOnly = true }},
		Request: llm.Request{Messages: fakeapi.ToolTurn()},
		Step: fakeapi.Step{
			Want: map[string]string{"messages": `[
				{"role": "user", "content": [
					{"type": "text", "text": "Look:"},
					{"type": "text", "text": "[image]"},
					{"type": "text", "text": "Weather in Paris, and show me the screen."}
				]},
				` + assistantWire + `,
				` + toolResultsWire(`{"type": "text", "text": "[image]"}`) + `
			]`},
			Answer: doneAnswer,
		},
	})
}

func TestStopReasons(t *testing.T) {
	for stop, want := range map[string]llm.StopReason{
		"refusal":                       llm.StopRefusal,
		"max_tokens":                    llm.StopMaxTokens,
		"model_context_window_exceeded": llm.StopMaxTokens,
		"stop_sequence":                 llm.StopEndTurn,
		"pause_turn":                    llm.StopOther,
	} {
		vendor.Exchanges(t, exchange{
			Name:    stop,
			Request: fakeapi.Question(),
			Step:    fakeapi.Step{Answer: answer(`[{"type": "text", "text": "..."}]`, stop, smallUsage)},
			Want:    fakeapi.Reply("...", nil, want, stop, llm.Usage{InputTokens: 1, OutputTokens: 1}),
		})
	}
}

func TestAPIError(t *testing.T) {
	vendor.Exchanges(t, exchange{
		Name:    "401",
		Request: fakeapi.Question(),
		Step: fakeapi.Step{Status: http.StatusUnauthorized, Answer: `{"type": "error",
			"error": {"type": "authentication_error", "message": "invalid x-api-key ` + fakeapi.Key + `"}, "request_id": "req_1"}`},
		WantError: &llm.APIError{StatusCode: 401, Type: "authentication_error", Message: "invalid x-api-key ***"},
	}, exchange{
		Name:    "429",
		Request: fakeapi.Question(),
		Step: fakeapi.Step{Status: http.StatusTooManyRequests, Answer: `{"type": "error",
			"error": {"type": "rate_limit_error", "message": "Number of request tokens has exceeded your per-minute rate limit."}}`},
		WantError: &llm.APIError{StatusCode: 429, Type: "rate_limit_error", Message: "Number of request tokens has exceeded your per-minute rate limit."},
	}, exchange{
		Name:      "529",
		Request:   fakeapi.Question(),
		Step:      fakeapi.Step{Status: 529, Answer: `{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}`},
		WantError: &llm.APIError{StatusCode: 529, Type: "overloaded_error", Message: "Overloaded"},
	})
}

func TestNewChecks(t *testing.T) {
	vendor.Refuses(t, map[string]opt{
		"BaseURL":       func(o *anthropic.Options) { o.BaseURL = "api.anthropic.com" },
		"MaxTokens -1":  func(o *anthropic.Options) { o.MaxTokens = -1 },
		"MaxRetries -1": func(o *anthropic.Options) { o.MaxRetries = -1 },
	})
}

func TestPromises(t *testing.T) { vendor.Promises(t) }

// events is an event stream of the Messages API: each pair an event's type
// and its data, on one line.
func events(pairs ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		b.WriteString("event: " + pairs[i] + "\ndata: " + pairs[i+1] + "\n\n")
	}
	return b.String()
}

// A request with OnText is streamed: its text goes to OnText piece by piece
// as it arrives, and the response is what the same answer unstreamed makes,
// tool calls (their input sent in pieces) and usage included.
func TestStream(t *testing.T) {
	start := `{"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "test-model", ` +
		`"content": [], "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 20, "output_tokens": 1}}}`
	vendor.Exchanges(t, exchange{
		Name:    "text and a tool call",
		Request: llm.Request{Messages: fakeapi.Question().Messages, Tools: fakeapi.Tools()},
		Deltas:  []string{"Checking", " Paris."},
		Step: fakeapi.Step{
			Want:   map[string]string{"stream": `true`},
			Stream: true,
			Answer: events(
				"message_start", start,
				"content_block_start", `{"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}`,
				"content_block_delta", `{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Checking"}}`,
				"ping", `{"type": "ping"}`,
				"content_block_delta", `{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": " Paris."}}`,
				"content_block_stop", `{"type": "content_block_stop", "index": 0}`,
				"content_block_start", `{"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}}`,
				"content_block_delta", `{"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"city\":"}}`,
				"content_block_delta", `{"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": " \"Paris\"}"}}`,
				"content_block_stop", `{"type": "content_block_stop", "index": 1}`,
				"message_delta", `{"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 15}}`,
				"message_stop", `{"type": "message_stop"}`),
		},
		Want: fakeapi.Reply("Checking Paris.", []llm.ToolCall{{ID: "toolu_1", Name: "get_weather", Arguments: json.RawMessage(`{"city": "Paris"}`)}},
			llm.StopToolUse, "tool_use", llm.Usage{InputTokens: 20, OutputTokens: 15}),
	}, exchange{
		// An error the API sends in the stream is an APIError, as one
		// it answers with before the stream.
		Name:    "error in the stream",
		Request: fakeapi.Question(),
		Deltas:  []string{"Hel"},
		Step: fakeapi.Step{Stream: true, Answer: events(
			"message_start", start,
			"content_block_start", `{"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}`,
			"content_block_delta", `{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hel"}}`,
			"error", `{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}`)},
		WantError: &llm.APIError{StatusCode: 200, Type: "overloaded_error", Message: "Overloaded"},
	}, exchange{
		Name:      "refused before the stream",
		Request:   fakeapi.Question(),
		Deltas:    []string{},
		Step:      fakeapi.Step{Status: 529, Answer: `{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}`},
		WantError: &llm.APIError{StatusCode: 529, Type: "overloaded_error", Message: "Overloaded"},
	})
}

// Nil Options are the defaults.
func TestNilOptions(t *testing.T) {
	m, err := anthropic.New("claude-sonnet-4-5", nil)
	if err != nil || !m.Vision() || m.Name() != "claude-sonnet-4-5" {
		t.Fatalf("New with nil Options: %v, %v", m, err)
	}
}

// With DeferTools, deferred tools go with defer_loading, and a tool
// result's references as tool_reference blocks after its text.
func TestDeferredTools(t *testing.T) {
	call := llm.ToolCall{ID: "call_f", Name: "find_tools", Arguments: json.RawMessage(`{"query":"weather"}`)}
	found := llm.ToolResult(call, tool.Text("get_weather: Weather in a city."))
	found.References = []string{"get_weather"}
	req := llm.Request{
		Messages: []llm.Message{llm.UserText("Weather in Paris?"), {Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call}}, found},
		Tools:    []tool.Definition{{Name: "find_tools"}},
		Deferred: fakeapi.Tools(),
	}
	vendor.Exchanges(t, exchange{
		Name:    "deferred",
		Opts:    opts{func(o *anthropic.Options) { o.DeferTools = true }},
		Request: req,
		Step: fakeapi.Step{
			Want: map[string]string{
				"tools": `[
					{"name": "find_tools", "input_schema": {"type": "object", "properties": {}}},
					{"name": "get_weather", "description": "Weather in a city.", "input_schema": ` + fakeapi.WeatherSchema + `, "defer_loading": true},
					{"name": "get_time", "input_schema": {"type": "object", "properties": {}}, "defer_loading": true}
				]`,
				"messages": `[
					{"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]},
					{"role": "assistant", "content": [{"type": "tool_use", "id": "call_f", "name": "find_tools", "input": {"query": "weather"}}]},
					{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_f", "content": [
						{"type": "text", "text": "get_weather: Weather in a city."},
						{"type": "tool_reference", "tool_name": "get_weather"}
					]}]}
				]`,
			},
			Answer: doneAnswer,
		},
	})
	// Without it, deferred tools are refused before anything is sent, and
	// references are left out.
	m, err := anthropic.New("claude-3-haiku", &anthropic.Options{APIKey: fakeapi.Key, BaseURL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	if m.DefersTools() {
		t.Fatal("DefersTools without Options.DeferTools")
	}
	if _, err := m.Generate(t.Context(), req); err == nil || !strings.Contains(err.Error(), "Options.DeferTools") {
		t.Fatalf("deferred tools without DeferTools: %v", err)
	}
	req.Deferred = nil
	vendor.Exchanges(t, exchange{
		Name:    "not deferring",
		Request: req,
		Step: fakeapi.Step{
			Want: map[string]string{"messages": `[
				{"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]},
				{"role": "assistant", "content": [{"type": "tool_use", "id": "call_f", "name": "find_tools", "input": {"query": "weather"}}]},
				{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_f", "content": [{"type": "text", "text": "get_weather: Weather in a city."}]}]}
			]`},
			Answer: doneAnswer,
		},
	})
}
