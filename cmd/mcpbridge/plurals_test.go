package main_test

import (
	"fmt"
	"regexp"
	"testing"
)

// A count of one takes the singular, in the command's lines and in the
// libraries' messages it prints.
func TestPlurals(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, dir, "one.json", fmt.Sprintf(`{"mcpServers": {"demo": {"command": %q, "args": ["serve-demo"], "allowedTools": ["add_note"]}}}`, bin))
	wrong := regexp.MustCompile(`\b1 [a-z]+s\b|\(s\)`)
	for _, c := range []struct {
		args []string
		code int
		has  string
	}{
		{[]string{"tools"}, 0, "demo: ready, 1 tool ("},
		{[]string{"lint", "--vendor", "anthropic"}, 0, "checked 1 tool for anthropic"},
		{[]string{"call", "add_note", `{"title":"","body":"b"}`}, 2, `argument "title": want at least 1 character, got 0`},
	} {
		r := mcpbridge(t, dir, "", nil, append(c.args, "--config", cfg)...)
		expect(t, r, c.code, c.has)
		if m := wrong.FindString(r.out + r.err); m != "" {
			t.Errorf("%v: %q in\n%s%s", c.args, m, r.out, r.err)
		}
	}
}
