package toolschema

import (
	"fmt"
)

// A Vendor is a model vendor whose API has its own rules for tool names and
// for the JSON Schema of tool parameters: schema.Vendor, whose values it
// takes by a conversion.
type Vendor string

// The vendors mcpbridge knows the rules of.
const (
	// OpenAI is the OpenAI API (Chat Completions and Responses function tools),
	// and by extension the OpenAI-compatible servers that copy its rules.
	OpenAI Vendor = "openai"
	// Anthropic is the Anthropic Messages API (client tools).
	Anthropic Vendor = "anthropic"
	// Gemini is the Gemini API function declarations (also Vertex AI).
	Gemini Vendor = "gemini"
)

func (v Vendor) valid() bool { return v == OpenAI || v == Anthropic || v == Gemini }

func (v Vendor) check() error {
	if !v.valid() {
		return fmt.Errorf("schema: unknown vendor %q", string(v))
	}
	return nil
}
