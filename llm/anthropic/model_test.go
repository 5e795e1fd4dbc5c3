package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/llm/anthropic"
	"github.com/mcpbridge/mcpbridge/llm/internal/fakeapi"
	"github.com/mcpbridge/mcpbridge/tool"
)

const testKey = "sk-ant-test-0123456789abcdef-secret"

type step = fakeapi.Step

// messages is the Messages API as the fake plays it.
var messages = fakeapi.API{
	Path: "/v1/messages",
	Headers: func(t *testing.T, h http.Header) {
		// The SDK sends the key as a bearer token; the API also takes x-api-key.
		if auth, key := h.Get("Authorization"), h.Get("X-Api-Key"); auth != "Bearer "+testKey && key != testKey {
			t.Errorf("no API key: Authorization %q, X-Api-Key %q", auth, key)
		}
		if h.Get("Anthropic-Version") == "" {
			t.Error("no anthropic-version header")
		}
	},
	Unexpected: `{"type":"error","error":{"type":"api_error","message":"unexpected"}}`,
}

type fake struct{ srv *fakeapi.Server }

func newFake(t *testing.T, steps ...step) *fake {
	t.Helper()
	return &fake{fakeapi.Start(t, messages, steps...)}
}

func (f *fake) model(t *testing.T, opts ...anthropic.Option) *anthropic.Model {
	t.Helper()
	opts = append([]anthropic.Option{
		anthropic.WithBaseURL(f.srv.URL),
		anthropic.WithAPIKey(testKey),
		anthropic.WithHTTPClient(f.srv.Client()),
		anthropic.WithMaxRetries(0),
	}, opts...)
	m, err := anthropic.New("claude-test", opts...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func answer(content, stop, usage string) string {
	return `{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
		"content": ` + content + `, "stop_reason": "` + stop + `", "stop_sequence": null,
		"usage": ` + usage + `}`
}

const smallUsage = `{"input_tokens": 1, "output_tokens": 1}`

func TestPlainText(t *testing.T) {
	f := newFake(t, step{
		Check: func(t *testing.T, body []byte) {
			fakeapi.WantJSON(t, "model", fakeapi.Field(t, body, "model"), `"claude-test"`)
			fakeapi.WantJSON(t, "max_tokens", fakeapi.Field(t, body, "max_tokens"), `4096`)
			fakeapi.WantJSON(t, "system", fakeapi.Field(t, body, "system"), `[
				{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}
			]`)
			fakeapi.WantJSON(t, "messages", fakeapi.Field(t, body, "messages"), `[
				{"role": "user", "content": [{"type": "text", "text": "Say hello."}]}
			]`)
			fakeapi.WantJSON(t, "temperature", fakeapi.Field(t, body, "temperature"), `0.5`)
			fakeapi.WantJSON(t, "tools", fakeapi.Field(t, body, "tools"), `null`)
		},
		Answer: answer(`[{"type": "text", "text": "Hello!"}]`, "end_turn",
			`{"input_tokens": 4, "output_tokens": 3, "cache_read_input_tokens": 16, "cache_creation_input_tokens": 2}`),
	})
	temp := 0.5
	resp, err := f.model(t, anthropic.WithPromptCaching(true)).Generate(context.Background(), llm.Request{
		System:      "Be brief.",
		Messages:    []llm.Message{llm.UserText("Say hello.")},
		Temperature: &temp,
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Message.Text(); got != "Hello!" || resp.Message.Role != llm.RoleAssistant {
		t.Errorf("message = %+v", resp.Message)
	}
	if resp.StopReason != llm.StopEndTurn || resp.VendorStopReason != "end_turn" {
		t.Errorf("stop = %q (%q)", resp.StopReason, resp.VendorStopReason)
	}
	want := llm.Usage{InputTokens: 22, OutputTokens: 3, CachedInputTokens: 16, CacheWriteInputTokens: 2}
	if resp.Usage != want {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want)
	}
}

// weatherSchema has its keywords out of alphabetical order and one unknown
// keyword, to show the schema is passed through byte for byte.
const weatherSchema = `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"],"x-extra":true}`

func TestParallelToolCalls(t *testing.T) {
	f := newFake(t, step{
		Check: func(t *testing.T, body []byte) {
			fakeapi.WantJSON(t, "tools", fakeapi.Field(t, body, "tools"), `[
				{"name": "get_weather", "description": "Weather in a city.", "input_schema": `+weatherSchema+`},
				{"name": "get_time", "input_schema": {"type": "object", "properties": {}}}
			]`)
			if !strings.Contains(string(body), `"input_schema":`+weatherSchema) {
				t.Errorf("schema not passed through verbatim:\n%s", body)
			}
			fakeapi.WantJSON(t, "max_tokens", fakeapi.Field(t, body, "max_tokens"), `1000`)
		},
		Answer: answer(`[
			{"type": "text", "text": "Let me check."},
			{"type": "tool_use", "id": "toolu_a", "name": "get_weather", "input": {"city": "Paris"}},
			{"type": "tool_use", "id": "toolu_b", "name": "get_time", "input": {}},
			{"type": "tool_use", "id": "toolu_c", "name": "get_weather", "input": "{\"city\": \"Rome\"}"}
		]`, "tool_use", smallUsage),
	})
	resp, err := f.model(t, anthropic.WithMaxTokens(1000)).Generate(context.Background(), llm.Request{
		Messages: []llm.Message{llm.UserText("Weather and time in Paris?")},
		Tools: []tool.Definition{
			{Name: "get_weather", Description: "Weather in a city.", InputSchema: json.RawMessage(weatherSchema)},
			{Name: "get_time"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ToolCall{
		{ID: "toolu_a", Name: "get_weather", Arguments: json.RawMessage(`{"city": "Paris"}`)},
		{ID: "toolu_b", Name: "get_time", Arguments: json.RawMessage(`{}`)},
		// Arguments stringified (by a gateway's model) are unwrapped.
		{ID: "toolu_c", Name: "get_weather", Arguments: json.RawMessage(`{"city": "Rome"}`)},
	}
	if !reflect.DeepEqual(resp.Message.ToolCalls, want) {
		t.Errorf("tool calls = %s", mustJSON(resp.Message.ToolCalls))
	}
	if resp.StopReason != llm.StopToolUse || resp.Message.Text() != "Let me check." {
		t.Errorf("stop = %q, text %q", resp.StopReason, resp.Message.Text())
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

var png = []byte("\x89PNG\r\n\x1a\nfake")

// toolTurn is a conversation whose last turn answers three parallel calls,
// the second with an image and the third with an error, and then adds a user
// remark.
func toolTurn() []llm.Message {
	calls := []llm.ToolCall{
		{ID: "toolu_a", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
		{ID: "toolu_b", Name: "screenshot", Arguments: nil},
		{ID: "toolu_c", Name: "delete_all", Arguments: json.RawMessage(`{}`)},
	}
	return []llm.Message{
		llm.UserText("Weather in Paris, and show me the screen."),
		{Role: llm.RoleAssistant, Parts: []tool.Part{tool.TextPart{Text: "Checking."}}, ToolCalls: calls},
		llm.ToolResult(calls[0], tool.Text("20°C")),
		llm.ToolResult(calls[1], tool.Result{Parts: []tool.Part{
			tool.TextPart{Text: "The screen:"},
			tool.ImagePart{MIMEType: "image/png", Data: png},
		}}),
		llm.ToolError(calls[2], "refused by policy"),
		llm.UserText("Be quick."),
	}
}

const doneAnswer = `{"id": "msg_2", "type": "message", "role": "assistant", "model": "claude-test",
	"content": [{"type": "text", "text": "Done."}], "stop_reason": "end_turn", "stop_sequence": null,
	"usage": {"input_tokens": 1, "output_tokens": 1}}`

// assistantWire is how toolTurn's assistant message goes on the wire.
const assistantWire = `{"role": "assistant", "content": [
	{"type": "text", "text": "Checking."},
	{"type": "tool_use", "id": "toolu_a", "name": "get_weather", "input": {"city": "Paris"}},
	{"type": "tool_use", "id": "toolu_b", "name": "screenshot", "input": {}},
	{"type": "tool_use", "id": "toolu_c", "name": "delete_all", "input": {}}
]}`

func TestToolResultsWithImage(t *testing.T) {
	f := newFake(t, step{
		Check: func(t *testing.T, body []byte) {
			// Without prompt caching the system prompt has no cache_control.
			fakeapi.WantJSON(t, "system", fakeapi.Field(t, body, "system"), `[{"type": "text", "text": "Be brief."}]`)
			// The request's limit takes precedence over the model's.
			fakeapi.WantJSON(t, "max_tokens", fakeapi.Field(t, body, "max_tokens"), `200`)
			fakeapi.WantJSON(t, "messages", fakeapi.Field(t, body, "messages"), `[
				{"role": "user", "content": [{"type": "text", "text": "Weather in Paris, and show me the screen."}]},
				`+assistantWire+`,
				{"role": "user", "content": [
					{"type": "tool_result", "tool_use_id": "toolu_a", "content": [{"type": "text", "text": "20°C"}]},
					{"type": "tool_result", "tool_use_id": "toolu_b", "content": [
						{"type": "text", "text": "The screen:"},
						{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgpmYWtl"}}
					]},
					{"type": "tool_result", "tool_use_id": "toolu_c", "is_error": true, "content": [{"type": "text", "text": "refused by policy"}]},
					{"type": "text", "text": "Be quick."}
				]}
			]`)
		},
		Answer: doneAnswer,
	})
	resp, err := f.model(t, anthropic.WithMaxTokens(1000)).Generate(context.Background(), llm.Request{
		System:    "Be brief.",
		MaxTokens: 200,
		Messages:  toolTurn(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Text() != "Done." {
		t.Errorf("text = %q", resp.Message.Text())
	}
}

func TestNoVision(t *testing.T) {
	f := newFake(t, step{
		Check: func(t *testing.T, body []byte) {
			fakeapi.WantJSON(t, "messages", fakeapi.Field(t, body, "messages"), `[
				{"role": "user", "content": [
					{"type": "text", "text": "Look:"},
					{"type": "text", "text": "[image]"},
					{"type": "text", "text": "Weather in Paris, and show me the screen."}
				]},
				`+assistantWire+`,
				{"role": "user", "content": [
					{"type": "tool_result", "tool_use_id": "toolu_a", "content": [{"type": "text", "text": "20°C"}]},
					{"type": "tool_result", "tool_use_id": "toolu_b", "content": [
						{"type": "text", "text": "The screen:"},
						{"type": "text", "text": "[image]"}
					]},
					{"type": "tool_result", "tool_use_id": "toolu_c", "is_error": true, "content": [{"type": "text", "text": "refused by policy"}]},
					{"type": "text", "text": "Be quick."}
				]}
			]`)
		},
		Answer: doneAnswer,
	})
	m := f.model(t, anthropic.WithVision(false))
	if m.Vision() {
		t.Error("Vision() = true after WithVision(false)")
	}
	msgs := append([]llm.Message{llm.User(tool.TextPart{Text: "Look:"}, tool.ImagePart{MIMEType: "image/png", Data: png})}, toolTurn()...)
	if _, err := m.Generate(context.Background(), llm.Request{Messages: msgs}); err != nil {
		t.Fatal(err)
	}
}

func TestStopReasons(t *testing.T) {
	for _, tc := range []struct {
		stop string
		want llm.StopReason
	}{
		{"refusal", llm.StopRefusal},
		{"max_tokens", llm.StopMaxTokens},
		{"model_context_window_exceeded", llm.StopMaxTokens},
		{"stop_sequence", llm.StopEndTurn},
		{"pause_turn", llm.StopOther},
	} {
		t.Run(tc.stop, func(t *testing.T) {
			f := newFake(t, step{Answer: answer(`[{"type": "text", "text": "..."}]`, tc.stop, smallUsage)})
			resp, err := f.model(t).Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("?")}})
			if err != nil {
				t.Fatal(err)
			}
			if resp.StopReason != tc.want || resp.VendorStopReason != tc.stop {
				t.Errorf("stop = %q (%q), want %q", resp.StopReason, resp.VendorStopReason, tc.want)
			}
		})
	}
}

func TestAPIError(t *testing.T) {
	for _, tc := range []struct {
		status    int
		body      string
		retryable bool
		contains  []string
	}{
		{http.StatusUnauthorized,
			`{"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key ` + testKey + `"}, "request_id": "req_1"}`,
			false, []string{"anthropic", "401", "authentication_error"}},
		{http.StatusTooManyRequests,
			`{"type": "error", "error": {"type": "rate_limit_error", "message": "Number of request tokens has exceeded your per-minute rate limit."}}`,
			true, []string{"anthropic", "429", "rate_limit_error", "per-minute rate limit"}},
		{529,
			`{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}`,
			true, []string{"anthropic", "529", "overloaded_error"}},
	} {
		t.Run(strconv.Itoa(tc.status), func(t *testing.T) {
			f := newFake(t, step{Status: tc.status, Answer: tc.body})
			resp, err := f.model(t).Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("?")}})
			if err == nil {
				t.Fatalf("no error; response %+v", resp)
			}
			var apiErr *llm.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("error %T %v is not an *llm.APIError", err, err)
			}
			if apiErr.Vendor != "anthropic" || apiErr.StatusCode != tc.status || apiErr.Retryable() != tc.retryable {
				t.Errorf("APIError = %+v, retryable %v", apiErr, apiErr.Retryable())
			}
			msg := err.Error()
			t.Logf("error: %s", msg)
			for _, s := range tc.contains {
				if !strings.Contains(msg, s) {
					t.Errorf("error %q does not contain %q", msg, s)
				}
			}
			if strings.Contains(msg, testKey) || strings.Contains(msg, "secret") || strings.Contains(msg, f.srv.URL) {
				t.Errorf("error %q carries the key or the URL", msg)
			}
		})
	}
}

func TestNewChecks(t *testing.T) {
	if _, err := anthropic.New(""); err == nil {
		t.Error("New accepted an empty model name")
	}
	if _, err := anthropic.New("m", anthropic.WithBaseURL("api.anthropic.com")); err == nil {
		t.Error("New accepted a base URL without a scheme")
	}
}

// A canceled context is the caller's error, as it is, not an API error.
func TestCanceled(t *testing.T) {
	f := newFake(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := f.model(t).Generate(ctx, llm.Request{Messages: []llm.Message{llm.UserText("?")}})
	var apiErr *llm.APIError
	if !errors.Is(err, context.Canceled) || errors.As(err, &apiErr) {
		t.Errorf("error = %v, want context.Canceled and no APIError", err)
	}
}

// countingTransport counts the requests it carries.
type countingTransport struct{ n atomic.Int32 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

// The SDK options of WithRequestOptions are applied after the package's own
// options, whatever the order they are given in; and a nil HTTP client
// leaves the SDK's default in place instead of breaking every request.
func TestOptionOrder(t *testing.T) {
	f := newFake(t, step{Answer: doneAnswer})
	var c countingTransport
	m := f.model(t,
		anthropic.WithRequestOptions(option.WithHTTPClient(&http.Client{Transport: &c})),
		anthropic.WithHTTPClient(f.srv.Client()),
		anthropic.WithHTTPClient(nil),
		anthropic.WithMaxRetries(0),
	)
	if _, err := m.Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("?")}}); err != nil {
		t.Fatal(err)
	}
	if n := c.n.Load(); n != 1 {
		t.Errorf("the request options' client carried %d requests, want 1", n)
	}
}
