package agent_test

import (
	"os/exec"
	"strings"
	"testing"
)

// A program that imports agent builds no JavaScript interpreter: code mode
// plugs in from package codemode (Config.Code), so an agent without it
// does not pay QuickJS's build time and size.
func TestAgentBuildsNoInterpreter(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, d := range strings.Fields(string(out)) {
		if strings.HasPrefix(d, "modernc.org/") || d == "github.com/mcpbridge/mcpbridge/codemode" {
			t.Errorf("agent builds %s", d)
		}
	}
}
