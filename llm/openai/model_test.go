package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/openai/openai-go/v3/option"

	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/llm/internal/fakeapi"
	"github.com/mcpbridge/mcpbridge/llm/openai"
	"github.com/mcpbridge/mcpbridge/tool"
)

const testKey = "sk-test-0123456789abcdef-secret"

type step = fakeapi.Step

// chatCompletions is the Chat Completions API as the fake plays it.
var chatCompletions = fakeapi.API{
	Path: "/v1/chat/completions",
	Headers: func(t *testing.T, h http.Header) {
		if got := h.Get("Authorization"); got != "Bearer "+testKey {
			t.Errorf("Authorization = %q", got)
		}
	},
	Unexpected: `{"error":{"message":"unexpected"}}`,
}

type fake struct{ srv *fakeapi.Server }

func newFake(t *testing.T, steps ...step) *fake {
	t.Helper()
	return &fake{fakeapi.Start(t, chatCompletions, steps...)}
}

func (f *fake) model(t *testing.T, opts ...openai.Option) *openai.Model {
	t.Helper()
	opts = append([]openai.Option{
		openai.WithBaseURL(f.srv.URL + "/v1"),
		openai.WithAPIKey(testKey),
		openai.WithHTTPClient(f.srv.Client()),
		openai.WithMaxRetries(0),
	}, opts...)
	m, err := openai.New("gpt-test", opts...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPlainText(t *testing.T) {
	f := newFake(t, step{
		Check: func(t *testing.T, body []byte) {
			fakeapi.WantJSON(t, "model", fakeapi.Field(t, body, "model"), `"gpt-test"`)
			fakeapi.WantJSON(t, "messages", fakeapi.Field(t, body, "messages"), `[
				{"role": "system", "content": "Be brief."},
				{"role": "user", "content": "Say hello."}
			]`)
			fakeapi.WantJSON(t, "max_completion_tokens", fakeapi.Field(t, body, "max_completion_tokens"), `100`)
			fakeapi.WantJSON(t, "temperature", fakeapi.Field(t, body, "temperature"), `0.5`)
			fakeapi.WantJSON(t, "tools", fakeapi.Field(t, body, "tools"), `null`)
		},
		Answer: `{
			"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-test",
			"choices": [{"index": 0, "finish_reason": "stop",
				"message": {"role": "assistant", "content": "Hello!", "refusal": null}}],
			"usage": {"prompt_tokens": 20, "completion_tokens": 3, "total_tokens": 23,
				"prompt_tokens_details": {"cached_tokens": 16}}
		}`,
	})
	temp := 0.5
	resp, err := f.model(t, openai.WithMaxTokens(100)).Generate(context.Background(), llm.Request{
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
	if resp.StopReason != llm.StopEndTurn || resp.VendorStopReason != "stop" {
		t.Errorf("stop = %q (%q)", resp.StopReason, resp.VendorStopReason)
	}
	want := llm.Usage{InputTokens: 20, OutputTokens: 3, CachedInputTokens: 16}
	if resp.Usage != want {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want)
	}
}

// weatherSchema has its keywords out of alphabetical order and one unknown
// keyword, to show the schema is passed through byte for byte.
const weatherSchema = `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"],"x-extra":true}`

// A definition lowered to strict mode goes with "strict": true, unless the
// model was told not to send it.
func TestStrictTools(t *testing.T) {
	strictSchema := `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`
	tools := []tool.Definition{
		{Name: "get_weather", InputSchema: json.RawMessage(strictSchema), Strict: true},
		{Name: "get_time"},
	}
	answer := `{"id": "x", "object": "chat.completion", "created": 1, "model": "gpt-test",
		"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}]}`
	for _, tc := range []struct {
		opts []openai.Option
		want string
	}{
		{nil, `[{"type": "function", "function": {"name": "get_weather", "parameters": ` + strictSchema + `, "strict": true}},
			{"type": "function", "function": {"name": "get_time", "parameters": {"type": "object", "properties": {}}}}]`},
		{[]openai.Option{openai.WithStrict(false)}, `[{"type": "function", "function": {"name": "get_weather", "parameters": ` + strictSchema + `}},
			{"type": "function", "function": {"name": "get_time", "parameters": {"type": "object", "properties": {}}}}]`},
	} {
		f := newFake(t, step{
			Check: func(t *testing.T, body []byte) {
				fakeapi.WantJSON(t, "tools", fakeapi.Field(t, body, "tools"), tc.want)
			},
			Answer: answer,
		})
		if _, err := f.model(t, tc.opts...).Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("?")}, Tools: tools}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestParallelToolCalls(t *testing.T) {
	f := newFake(t, step{
		Check: func(t *testing.T, body []byte) {
			fakeapi.WantJSON(t, "tools", fakeapi.Field(t, body, "tools"), `[
				{"type": "function", "function": {"name": "get_weather", "description": "Weather in a city.",
					"parameters": `+weatherSchema+`}},
				{"type": "function", "function": {"name": "get_time",
					"parameters": {"type": "object", "properties": {}}}}
			]`)
			if !strings.Contains(string(body), `"parameters":`+weatherSchema) {
				t.Errorf("schema not passed through verbatim:\n%s", body)
			}
			// The request's limit takes precedence over the model's.
			fakeapi.WantJSON(t, "max_completion_tokens", fakeapi.Field(t, body, "max_completion_tokens"), `50`)
		},
		Answer: `{
			"id": "chatcmpl-2", "object": "chat.completion", "created": 1, "model": "gpt-test",
			"choices": [{"index": 0, "finish_reason": "tool_calls",
				"message": {"role": "assistant", "content": null, "tool_calls": [
					{"id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
					{"id": "call_b", "type": "function", "function": {"name": "get_time", "arguments": ""}},
					{"id": "call_c", "type": "function", "function": {"name": "get_weather", "arguments": "\"{\\\"city\\\":\\\"Rome\\\"}\""}}
				]}}],
			"usage": {"prompt_tokens": 50, "completion_tokens": 30, "total_tokens": 80}
		}`,
	})
	resp, err := f.model(t, openai.WithMaxTokens(100)).Generate(context.Background(), llm.Request{
		MaxTokens: 50,
		Messages:  []llm.Message{llm.UserText("Weather and time in Paris?")},
		Tools: []tool.Definition{
			{Name: "get_weather", Description: "Weather in a city.", InputSchema: json.RawMessage(weatherSchema)},
			{Name: "get_time"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ToolCall{
		{ID: "call_a", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
		{ID: "call_b", Name: "get_time", Arguments: json.RawMessage(`{}`)},
		// Arguments stringified by the model are unwrapped.
		{ID: "call_c", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Rome"}`)},
	}
	if !reflect.DeepEqual(resp.Message.ToolCalls, want) {
		t.Errorf("tool calls = %+v", resp.Message.ToolCalls)
	}
	if resp.StopReason != llm.StopToolUse {
		t.Errorf("stop = %q", resp.StopReason)
	}
	if len(resp.Message.Parts) != 0 {
		t.Errorf("parts = %+v, want none", resp.Message.Parts)
	}
}

var png = []byte("\x89PNG\r\n\x1a\nfake")

// toolTurn is a conversation whose last turn answers two parallel calls, the
// first with an image, so that its images must wait for the second's tool
// message. The screenshot's arguments are null, which goes as {}.
func toolTurn() []llm.Message {
	calls := []llm.ToolCall{
		{ID: "call_a", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
		{ID: "call_b", Name: "screenshot", Arguments: json.RawMessage(`null`)},
	}
	return []llm.Message{
		llm.UserText("Weather in Paris, and show me the screen."),
		{Role: llm.RoleAssistant, Parts: []tool.Part{tool.TextPart{Text: "Checking."}}, ToolCalls: calls},
		llm.ToolResult(calls[1], tool.Result{Parts: []tool.Part{
			tool.TextPart{Text: "The screen:"},
			tool.ImagePart{MIMEType: "image/png", Data: png},
		}}),
		llm.ToolResult(calls[0], tool.Text("20°C")),
	}
}

const doneAnswer = `{
	"id": "chatcmpl-3", "object": "chat.completion", "created": 1, "model": "gpt-test",
	"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Done."}}],
	"usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
}`

func TestToolResultsWithImage(t *testing.T) {
	f := newFake(t, step{
		Check: func(t *testing.T, body []byte) {
			fakeapi.WantJSON(t, "messages", fakeapi.Field(t, body, "messages"), `[
				{"role": "user", "content": "Weather in Paris, and show me the screen."},
				{"role": "assistant", "content": "Checking.", "tool_calls": [
					{"id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
					{"id": "call_b", "type": "function", "function": {"name": "screenshot", "arguments": "{}"}}
				]},
				{"role": "tool", "tool_call_id": "call_b", "content": "The screen:\n[image]"},
				{"role": "tool", "tool_call_id": "call_a", "content": "20°C"},
				{"role": "user", "content": [
					{"type": "text", "text": "The images of the result of tool call call_b (screenshot), in the order of its [image] marks:"},
					{"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgpmYWtl"}}
				]}
			]`)
		},
		Answer: doneAnswer,
	})
	resp, err := f.model(t).Generate(context.Background(), llm.Request{Messages: toolTurn()})
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
				{"role": "user", "content": "Look:\n[image]"},
				{"role": "user", "content": "Weather in Paris, and show me the screen."},
				{"role": "assistant", "content": "Checking.", "tool_calls": [
					{"id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
					{"id": "call_b", "type": "function", "function": {"name": "screenshot", "arguments": "{}"}}
				]},
				{"role": "tool", "tool_call_id": "call_b", "content": "The screen:\n[image]"},
				{"role": "tool", "tool_call_id": "call_a", "content": "20°C"}
			]`)
		},
		Answer: doneAnswer,
	})
	m := f.model(t, openai.WithVision(false))
	if m.Vision() {
		t.Error("Vision() = true after WithVision(false)")
	}
	msgs := append([]llm.Message{llm.User(tool.TextPart{Text: "Look:"}, tool.ImagePart{MIMEType: "image/png", Data: png})}, toolTurn()...)
	if _, err := m.Generate(context.Background(), llm.Request{Messages: msgs}); err != nil {
		t.Fatal(err)
	}
}

func TestUserImage(t *testing.T) {
	f := newFake(t, step{
		Check: func(t *testing.T, body []byte) {
			fakeapi.WantJSON(t, "messages", fakeapi.Field(t, body, "messages"), `[
				{"role": "user", "content": [
					{"type": "text", "text": "What is this?"},
					{"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgpmYWtl"}}
				]}
			]`)
		},
		Answer: doneAnswer,
	})
	msg := llm.User(tool.TextPart{Text: "What is this?"}, tool.ImagePart{MIMEType: "image/png", Data: png})
	if _, err := f.model(t).Generate(context.Background(), llm.Request{Messages: []llm.Message{msg}}); err != nil {
		t.Fatal(err)
	}
}

func TestStopReasons(t *testing.T) {
	for _, tc := range []struct {
		name, message, finish string
		want                  llm.StopReason
	}{
		{"refusal", `{"role": "assistant", "content": null, "refusal": "I can't help with that."}`, "stop", llm.StopRefusal},
		{"content filter", `{"role": "assistant", "content": ""}`, "content_filter", llm.StopRefusal},
		{"length", `{"role": "assistant", "content": "Once upon"}`, "length", llm.StopMaxTokens},
		// Some local servers say "stop" and still return tool calls.
		{"tool calls with stop", `{"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{}"}}]}`, "stop", llm.StopToolUse},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, step{Answer: `{"id": "x", "object": "chat.completion", "created": 1, "model": "gpt-test",
				"choices": [{"index": 0, "finish_reason": "` + tc.finish + `", "message": ` + tc.message + `}]}`})
			resp, err := f.model(t).Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("?")}})
			if err != nil {
				t.Fatal(err)
			}
			if resp.StopReason != tc.want {
				t.Errorf("stop = %q, want %q", resp.StopReason, tc.want)
			}
			if tc.name == "refusal" && resp.Message.Text() != "I can't help with that." {
				t.Errorf("refusal text = %q", resp.Message.Text())
			}
			if tc.name == "tool calls with stop" && resp.Message.ToolCalls[0].ID != "call_0" {
				t.Errorf("missing ID not filled: %+v", resp.Message.ToolCalls)
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
			`{"error": {"message": "Incorrect API key provided: sk-test-****************cret. You can find your API key at https://platform.openai.com/account/api-keys.", "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}}`,
			false, []string{"openai", "401", "invalid_api_key", "Incorrect API key provided"}},
		{http.StatusTooManyRequests,
			`{"error": {"message": "Rate limit reached for gpt-test.", "type": "requests", "param": null, "code": "rate_limit_exceeded"}}`,
			true, []string{"openai", "429", "rate_limit_exceeded"}},
	} {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			f := newFake(t, step{Status: tc.status, Answer: tc.body})
			resp, err := f.model(t).Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("?")}})
			if err == nil {
				t.Fatalf("no error; response %+v", resp)
			}
			var apiErr *llm.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("error %T %v is not an *llm.APIError", err, err)
			}
			if apiErr.Vendor != "openai" || apiErr.StatusCode != tc.status || apiErr.Retryable() != tc.retryable {
				t.Errorf("APIError = %+v, retryable %v", apiErr, apiErr.Retryable())
			}
			msg := err.Error()
			t.Logf("error: %s", msg)
			for _, s := range tc.contains {
				if !strings.Contains(msg, s) {
					t.Errorf("error %q does not contain %q", msg, s)
				}
			}
			for _, secret := range []string{testKey, "sk-test-", "cret."} {
				if strings.Contains(msg, secret) {
					t.Errorf("error %q carries %q", msg, secret)
				}
			}
		})
	}
}

func TestNewChecks(t *testing.T) {
	if _, err := openai.New(""); err == nil {
		t.Error("New accepted an empty model name")
	}
	if _, err := openai.New("m", openai.WithBaseURL("localhost:11434")); err == nil {
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
		openai.WithRequestOptions(option.WithHTTPClient(&http.Client{Transport: &c})),
		openai.WithHTTPClient(f.srv.Client()),
		openai.WithHTTPClient(nil),
		openai.WithMaxRetries(0),
	)
	if _, err := m.Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("?")}}); err != nil {
		t.Fatal(err)
	}
	if n := c.n.Load(); n != 1 {
		t.Errorf("the request options' client carried %d requests, want 1", n)
	}
}
