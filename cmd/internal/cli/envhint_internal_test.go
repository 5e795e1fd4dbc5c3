package cli

import (
	"slices"
	"testing"
)

func TestMissingVariables(t *testing.T) {
	for line, want := range map[string][]string{
		"API_KEY is not set": {"API_KEY"},
		"Error: BRAVE_API_KEY environment variable is required":       {"BRAVE_API_KEY"},
		"Missing environment variable TOKEN":                          {"TOKEN"},
		"ERROR: missing env vars GITHUB_TOKEN, GITHUB_HOST":           {"GITHUB_TOKEN", "GITHUB_HOST"},
		"WARNING: CONTEXT7_API_KEY not set, using the free tier":      {"CONTEXT7_API_KEY"},
		"listening on stdio":                                          nil,
		"ERROR: the JSON body is missing a field":                     nil,
		"Unknown transport: --bogus":                                  nil,
		"MY_SETTING is set; connecting to HTTP_PROXY, all is defined": nil,
	} {
		if got := missingVariables(line); !slices.Equal(got, want) {
			t.Errorf("missingVariables(%q) = %q, want %q", line, got, want)
		}
	}
}
