package fakeapi

import (
	"encoding/json"

	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/tool"
)

// Hello is a request of one user text, with a system prompt and a
// temperature.
func Hello() llm.Request {
	temp := 0.5
	return llm.Request{
		System:      "Be brief.",
		Messages:    []llm.Message{llm.UserText("Say hello.")},
		Temperature: &temp,
	}
}

// Question is a request of one user text and nothing else.
func Question() llm.Request {
	return llm.Request{Messages: []llm.Message{llm.UserText("?")}}
}

// WeatherSchema has its keywords out of alphabetical order and one unknown
// keyword, to show that a schema is passed through byte for byte.
const WeatherSchema = `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"],"x-extra":true}`

// Tools are a tool with a schema and a description, and one with neither.
func Tools() []tool.Definition {
	return []tool.Definition{
		{Name: "get_weather", Description: "Weather in a city.", InputSchema: json.RawMessage(WeatherSchema)},
		{Name: "get_time"},
	}
}

// PNG is the bytes of an image; base64, "iVBORw0KGgpmYWtl".
var PNG = []byte("\x89PNG\r\n\x1a\nfake")

// ToolTurn is a conversation that opens with a user image, and whose last
// turn answers three parallel calls out of order: first the second call's,
// with an image (whose arguments were nil), then the first's, then the
// third's, an error; and then a user remark.
func ToolTurn() []llm.Message {
	calls := []llm.ToolCall{
		{ID: "call_a", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
		{ID: "call_b", Name: "screenshot", Arguments: nil},
		{ID: "call_c", Name: "delete_all", Arguments: json.RawMessage(`null`)},
	}
	return []llm.Message{
		{Role: llm.RoleUser, Parts: []tool.Part{tool.TextPart{Text: "Look:"}, tool.ImagePart{MIMEType: "image/png", Data: PNG}}},
		llm.UserText("Weather in Paris, and show me the screen."),
		{Role: llm.RoleAssistant, Parts: []tool.Part{tool.TextPart{Text: "Checking."}}, ToolCalls: calls},
		llm.ToolResult(calls[1], tool.Reply{Parts: []tool.Part{
			tool.TextPart{Text: "The screen:"},
			tool.ImagePart{MIMEType: "image/png", Data: PNG},
		}}),
		llm.ToolResult(calls[0], tool.Text("20°C")),
		llm.ToolError(calls[2], "refused by policy"),
		llm.UserText("Be quick."),
	}
}

// Reply is the response of an assistant's text and calls, stopped for stop
// (the vendor's reason vendorStop), with usage.
func Reply(text string, calls []llm.ToolCall, stop llm.StopReason, vendorStop string, usage llm.Usage) *llm.Response {
	msg := llm.Message{Role: llm.RoleAssistant, ToolCalls: calls}
	if text != "" {
		msg.Parts = []tool.Part{tool.TextPart{Text: text}}
	}
	return &llm.Response{Message: msg, Usage: usage, StopReason: stop, VendorStopReason: vendorStop}
}
