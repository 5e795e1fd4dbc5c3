package main_test

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
)

// lint's last line counts tools and problems apart: each tool once,
// whatever the vendors, as refused, changed or unchanged, and then the
// problems, one a line above it with --long; with plurals that agree with
// the numbers.
func TestLintSummary(t *testing.T) {
	summary := regexp.MustCompile(`(?m)^checked (\d+) tools? for ([a-z, ]+): (\d+) refused, (\d+) changed or renamed, (\d+) unchanged \((no problems|\d+ problems?)\)$`)
	check := func(r result, vendors string) []int {
		t.Helper()
		m := summary.FindStringSubmatch(r.out)
		if m == nil || m[2] != vendors {
			t.Fatalf("no summary for %s:\n%s", vendors, r.out)
		}
		var n []int
		for _, s := range []string{m[1], m[3], m[4], m[5], strings.TrimSuffix(strings.TrimSuffix(m[6], "s"), " problem")} {
			i, _ := strconv.Atoi(s) // "no problems" is 0
			n = append(n, i)
		}
		if n[1]+n[2]+n[3] != n[0] {
			t.Errorf("refused, changed and unchanged do not add up to the tools:\n%s", r.out)
		}
		if lines := strings.Count(r.out, "\n") - 1; lines != n[4] {
			t.Errorf("%d problem lines, %d problems counted:\n%s", lines, n[4], r.out)
		}
		if (n[0] == 1) != strings.Contains(m[0], " 1 tool ") || (n[4] == 1) != strings.Contains(m[0], "(1 problem)") {
			t.Errorf("plural wrong: %s", m[0])
		}
		return n
	}
	dir := t.TempDir()
	r := mcpbridge(t, dir, "", nil, "lint", "--long")
	expect(t, r, 0)
	if n := check(r, "openai, anthropic, gemini"); n[0] != 11 || n[1] != 0 {
		t.Errorf("demo: %v", n)
	}

	self, _ := os.Executable()
	cfg := writeConfig(t, dir, "rec.json", fmt.Sprintf(`{"mcpServers": {"rec": {"command": %q, "env": {%q: "tree-schema", "GORACE": "atexit_sleep_ms=0"}}}}`, self, hostile.ChildEnv))
	r = mcpbridge(t, dir, "", nil, "lint", "--vendor", "gemini", "--config", cfg)
	expect(t, r, 1, "checked 2 tools for gemini: 1 refused, 0 changed or renamed, 1 unchanged (1 problem)", "mcpbridge lint: 1 tool would be refused")
	check(r, "gemini")
}
