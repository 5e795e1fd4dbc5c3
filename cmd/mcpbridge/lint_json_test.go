package main_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
)

// lint --json is one object in the shape lint's help documents; the
// problems are [] when there are none.
func TestLintJSON(t *testing.T) {
	type report struct {
		Vendors  []string
		Tools    int
		Refused  int
		Changed  int
		Problems []struct {
			Verdict, Vendor, Server, Tool, In, Pointer, Message, SentAs string
		}
	}
	dir := t.TempDir()
	self, _ := os.Executable()
	cfg := writeConfig(t, dir, "rec.json", fmt.Sprintf(`{"mcpServers": {"rec": {"command": %q, "env": {%q: "tree-schema", "GORACE": "atexit_sleep_ms=0"}}}}`, self, hostile.ChildEnv))
	r := mcpbridge(t, dir, "", nil, "lint", "--json", "--vendor", "gemini", "--config", cfg)
	expect(t, r, 1)
	var rep report
	decode(t, r.out, &rep)
	if len(rep.Vendors) != 1 || rep.Vendors[0] != "gemini" || rep.Tools != 2 || rep.Refused != 1 || rep.Changed != 0 || len(rep.Problems) != 1 {
		t.Fatalf("report: %+v", rep)
	}
	if p := rep.Problems[0]; p.Verdict != "refused" || p.Vendor != "gemini" || p.Server != "rec" || p.Tool != "tree" || p.In != "inputSchema" || p.Message == "" {
		t.Errorf("problem: %+v", p)
	}

	r = mcpbridge(t, dir, "", nil, "lint", "--json", "--vendor", "anthropic")
	expect(t, r, 0, `"problems": []`)
	rep = report{}
	decode(t, r.out, &rep)
	if rep.Tools != 11 || rep.Refused != 0 || len(rep.Vendors) != 1 {
		t.Errorf("demo: %+v", rep)
	}
}
