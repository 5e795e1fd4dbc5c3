package main_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// mcpbridge builds neither the model vendors' SDKs nor code mode's
// interpreter: chat, web and run are mcpbridge-chat's, which it runs, and
// tools --code declares the tools without an interpreter (package
// codeapi). Either would make the README's first command, go run
// ./cmd/mcpbridge tools, slow to build on a fresh clone.
func TestMainProgramBuildsNoModelNorInterpreter(t *testing.T) {
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		return strings.Fields(string(out))
	}
	heavy := []string{"modernc.org/quickjs", "github.com/anthropics/anthropic-sdk-go", "github.com/openai/openai-go"}
	inChat := deps("../mcpbridge-chat")
	for _, h := range heavy {
		if !slices.ContainsFunc(inChat, func(d string) bool { return strings.HasPrefix(d, h) }) {
			t.Fatalf("mcpbridge-chat does not build %s: is the list right?", h)
		}
	}
	main := deps(".")
	if !slices.Contains(main, "github.com/mcpbridge/mcpbridge/internal/codeapi") {
		t.Fatal("mcpbridge does not build package codeapi: how does tools --code declare the tools?")
	}
	for _, d := range main {
		for _, h := range heavy {
			if strings.HasPrefix(d, h) {
				t.Errorf("mcpbridge builds %s", d)
			}
		}
	}
}
