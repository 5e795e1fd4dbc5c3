package main_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testing/npmtest"
)

// lint sums up what a vendor gets changed or renamed, a line per vendor,
// server and verdict, naming the tools; a tool refused keeps its lines.
// --long lists every problem, a line each, as --json has them.
func TestLintSumsUpChanges(t *testing.T) {
	dir := t.TempDir()
	server := []string{"--", npmtest.Bin(t, "mcp-server-everything"), "stdio"}
	r := mcpbridge(t, dir, "", nil, append([]string{"lint", "--json"}, server...)...)
	expect(t, r, 0)
	var rep struct {
		Vendors                 []string
		Tools, Refused, Changed int
		Problems                []struct {
			Verdict, Vendor, Server, Tool, In, Pointer, Message, SentAs string
		}
	}
	decode(t, r.out, &rep)
	groups := map[string]map[string]bool{} // verdict vendor: the tools
	for _, p := range rep.Problems {
		k := p.Verdict + " " + p.Vendor
		if groups[k] == nil {
			groups[k] = map[string]bool{}
		}
		groups[k][p.Tool] = true
	}
	if len(rep.Problems) < 10 || len(groups) < 2 {
		t.Fatalf("server-everything no longer has changes to sum up: %+v", rep)
	}

	r = mcpbridge(t, dir, "", nil, append([]string{"lint"}, server...)...)
	expect(t, r, 0, fmt.Sprintf("(%d problems; --long lists each)\n", len(rep.Problems)))
	lines := strings.Split(strings.TrimSuffix(r.out, "\n"), "\n")
	if len(lines) != len(groups)+1 {
		t.Errorf("want a line per vendor and verdict, then the summary; got:\n%s", r.out)
	}
	for k, tools := range groups {
		head := regexp.MustCompile(`(?m)^` + k + `: server "mcp-server-everything": (\d+) tools?( \((\d+) changes\))?: (.*)$`).FindStringSubmatch(r.out)
		if head == nil || head[1] != fmt.Sprint(len(tools)) {
			t.Errorf("no line for %s and its %d tools:\n%s", k, len(tools), r.out)
		}
	}
	if strings.Contains(r.out, " at /properties") {
		t.Errorf("a problem listed without --long:\n%s", r.out)
	}

	r = mcpbridge(t, dir, "", nil, append([]string{"lint", "--long"}, server...)...)
	expect(t, r, 0, fmt.Sprintf("(%d problems)\n", len(rep.Problems)))
	if n := strings.Count(r.out, "\n") - 1; n != len(rep.Problems) {
		t.Errorf("--long: %d lines for %d problems:\n%s", n, len(rep.Problems), r.out)
	}
}
