package anthropic_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/llm/anthropic"
	"github.com/mcpbridge/mcpbridge/llm/internal/fakeapi"
)

type (
	exchange = fakeapi.Exchange[anthropic.Option]
	opts     = []anthropic.Option
)

// vendor is this package as the shared tests drive it, against the Messages
// API as the fake plays it.
var vendor = fakeapi.Vendor[anthropic.Option]{
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
	New:        func(model string, opts ...anthropic.Option) (llm.Model, error) { return anthropic.New(model, opts...) },
	NoVision:   anthropic.WithVision(false),
	HTTPClient: anthropic.WithHTTPClient,
	SDKClient: func(c *http.Client) anthropic.Option {
		return anthropic.WithRequestOptions(option.WithHTTPClient(c))
	},
	On: func(srv *fakeapi.Server) []anthropic.Option {
		return opts{
			anthropic.WithBaseURL(srv.URL),
			anthropic.WithAPIKey(fakeapi.Key),
			anthropic.WithRequestOptions(option.WithMaxRetries(0)),
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
		Opts:    opts{anthropic.WithPromptCaching(true)},
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
		Opts:    opts{anthropic.WithMaxTokens(1000)},
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
		Opts: opts{anthropic.WithMaxTokens(1000)},
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
		Opts:    opts{anthropic.WithVision(false)},
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
	vendor.Refuses(t, map[string]anthropic.Option{
		"WithBaseURL":        anthropic.WithBaseURL("api.anthropic.com"),
		"WithMaxTokens(-1)":  anthropic.WithMaxTokens(-1),
		"WithMaxRetries(-1)": anthropic.WithMaxRetries(-1),
	})
}

func TestPromises(t *testing.T) { vendor.Promises(t) }
