package main_test

import (
	"strings"
	"testing"
)

// A config's problems are printed one a line, each naming the file, the
// server and the key, and no secret of the file.
func TestConfigProblemsOneALine(t *testing.T) {
	dir := t.TempDir()
	bad := writeConfig(t, dir, "bad.json", `{"mcpServers": {"x": {"comand": "npx", "url": "ftp://h"}, "y": {"url": "http://h", "headers": {"Authorization": "Bearer sk-SECRET"}, "prefix": "9bad"}}}`)
	r := mcpbridge(t, dir, "", nil, "lint", "--config", bad)
	expect(t, r, 2)
	want := []string{
		`mcpbridge lint: ` + bad + `: server "x": key "comand": unknown key; did you mean "command"?`,
		`mcpbridge lint: ` + bad + `: server "x": key "url": scheme "ftp": want http or https`,
		`mcpbridge lint: ` + bad + `: server "y": key "prefix": "9bad" is not an identifier`,
	}
	lines := strings.Split(strings.TrimSpace(r.err), "\n")
	if len(lines) != len(want) {
		t.Fatalf("stderr has %d lines, want %d:\n%s", len(lines), len(want), r.err)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d: %q, want it to start %q", i+1, lines[i], w)
		}
	}
	if strings.Contains(r.err, "SECRET") {
		t.Error("a secret in the error")
	}
}
