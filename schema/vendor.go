package schema

import (
	"fmt"
	"strings"
)

// A Vendor is a model vendor whose API has its own rules for tool names and
// for the JSON Schema of tool parameters.
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

// ParseVendor reads a vendor name, ignoring case and surrounding space. It
// accepts "google" for [Gemini] and "claude" for [Anthropic], the names
// users reach for in configuration files.
func ParseVendor(s string) (Vendor, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "openai":
		return OpenAI, nil
	case "anthropic", "claude":
		return Anthropic, nil
	case "gemini", "google":
		return Gemini, nil
	}
	return "", fmt.Errorf("schema: unknown vendor %q (want openai, anthropic or gemini)", s)
}
