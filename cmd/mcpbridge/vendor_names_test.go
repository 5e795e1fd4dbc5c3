package main_test

import (
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/toolschema"
)

// One server offering a/b and a.b, both a_b for OpenAI: its tools are all
// listed and each name calls its own tool; a.b, first in byte order, keeps
// the plain name and a/b has the namer's hash suffix, as lint says, once,
// of the one server.
func TestTwinNamesOfOneServer(t *testing.T) {
	dir := t.TempDir()
	namer := toolschema.NewNamer(toolschema.OpenAI)
	dot, _ := namer.Add("mcpbridge", "a.b", "a.b")
	slash, _ := namer.Add("mcpbridge", "a/b", "a/b")
	r := mcpbridge(t, dir, "", nil, withServer(t, "twin-names", "tools", "--vendor", "openai")...)
	expect(t, r, 0, slash+"\n", dot+"\n", "echo\n")
	for name, own := range map[string]string{dot: "a.b", slash: "a/b"} {
		r = mcpbridge(t, dir, "", nil, withServer(t, "twin-names", "call", "--vendor", "openai", name, "{}")...)
		expect(t, r, 0)
		if r.out != own+"\n" {
			t.Errorf("call %s: %q, want %q", name, r.out, own)
		}
	}
	r = mcpbridge(t, dir, "", nil, withServer(t, "twin-names", "lint", "--long", "--vendor", "openai")...)
	expect(t, r, 0)
	want := `renamed openai: server "mcpbridge" tool "a/b": tool name character '/' at byte 1 is not allowed (want ASCII letters, digits or one of "_-"), and "a_b" is tool "a.b"'s; sent as "` + slash + `"`
	if !strings.Contains(r.out, want+"\n") || strings.Count(r.out, `"a_b"`) != 2 || strings.Contains(r.err, "did not start") {
		t.Errorf("lint:\n%s%s\nwant the twin said once:\n%s", r.out, r.err, want)
	}
}
