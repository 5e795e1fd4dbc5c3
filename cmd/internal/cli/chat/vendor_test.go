package chat

import (
	"testing"

	"github.com/mcpbridge/mcpbridge/schema"
)

func TestOpenAIVendor(t *testing.T) {
	for base, want := range map[string]schema.Vendor{
		"":                          schema.OpenAI,
		"http://localhost:11434/v1": schema.OpenAI,
		"https://api.openai.com/v1": schema.OpenAI,
		"https://generativelanguage.googleapis.com/v1beta/openai/": schema.Gemini,
		"https://evil.example/generativelanguage.googleapis.com/":  schema.OpenAI,
	} {
		if got := openAIVendor(base); got != want {
			t.Errorf("openAIVendor(%q) = %s, want %s", base, got, want)
		}
	}
}
