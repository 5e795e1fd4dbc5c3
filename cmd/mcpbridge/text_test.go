package main_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"

	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
)

// checkClean fails if out holds what could drive a terminal or hide from a
// reader: ESC or another control character but "\n" and "\t", a C1 control,
// a bidi control or another format character.
func checkClean(t *testing.T, what, out string) {
	t.Helper()
	for i, r := range out {
		if (unicode.IsControl(r) && r != '\n' && r != '\t') || unicode.Is(unicode.Cf, r) {
			t.Fatalf("%s holds %U at byte %d:\n%q", what, r, i, out)
		}
	}
}

func withServer(t *testing.T, mode string, args ...string) []string {
	return append(args, hostileServer(t, mode)...)
}

// What mcpbridge prints for a person, and every line on stderr, is free of
// terminal escapes whatever the server sent, wherever the output goes.
func TestServerEscapesNotPrinted(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		code int
		has  []string
	}{
		{[]string{"tools"}, 0, []string{"paint\n  Paints. …\n", "parameters: color string, size number", "fail", "mcpbridge: ready, 3 tools"}},
		{[]string{"info"}, 0, []string{"server:       hostile 1 (Title)", "Use paint.\n    Second line.", "escaped: Escapes", "extensions:   io.modelcontextprotocol/skills, x"}},
		{[]string{"lint"}, 0, []string{"checked 3 tools"}},
		{[]string{"call", "fail"}, 1, []string{"failed"}},
		{[]string{"call", "broken"}, 3, []string{"broken"}},
		{[]string{"call", "paint", "-v"}, 0, []string{"stderr\n"}},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := mcpbridge(t, dir, "", nil, withServer(t, "escapes", c.args...)...)
			expect(t, r, c.code, c.has...)
			checkClean(t, "stderr", r.err)
			if c.args[0] != "call" {
				checkClean(t, "stdout", r.out)
			}
			if lines := strings.Split(strings.TrimSpace(r.err), "\n"); c.code != 0 && (len(lines) != 2 || !strings.HasPrefix(lines[1], "mcpbridge call: ")) {
				t.Errorf("want the ready line and the error's one line:\n%s", r.err)
			}
		})
	}
}

// A tool's result and a resource go to a pipe or a file as the server sent
// them: it is data, and a program reading it gets it whole.
func TestResultsToAPipeKeptWhole(t *testing.T) {
	dir := t.TempDir()
	r := mcpbridge(t, dir, "", nil, withServer(t, "escapes", "call", "paint")...)
	expect(t, r, 0)
	if want := "painted" + hostile.Escapes + "\nred\n"; r.out != want {
		t.Errorf("call: %q, want %q", r.out, want)
	}
	r = mcpbridge(t, dir, "", nil, withServer(t, "escapes", "read", "text://escapes")...)
	expect(t, r, 0)
	if want := "resource" + hostile.Escapes + "\n"; r.out != want {
		t.Errorf("read: %q, want %q", r.out, want)
	}
}

// JSON output escapes every control and format character, so it is safe
// on a terminal and decodes to exactly what the server sent.
func TestJSONOutputEscaped(t *testing.T) {
	dir := t.TempDir()
	r := mcpbridge(t, dir, "", nil, withServer(t, "escapes", "tools", "--json")...)
	expect(t, r, 0)
	checkClean(t, "tools --json", r.out)
	var tools []struct {
		Name, Description string
		InputSchema       struct{ Properties map[string]any } `json:"input_schema"`
	}
	if err := json.Unmarshal([]byte(r.out), &tools); err != nil {
		t.Fatal(err)
	}
	if len(tools) == 0 || tools[0].Description != hostile.Paint["description"] || tools[0].InputSchema.Properties["\x1b[31mcolor\x1b[0m"] == nil {
		t.Errorf("the JSON does not hold what the server sent: %+v", tools)
	}

	r = mcpbridge(t, dir, "", nil, withServer(t, "escapes", "call", "paint", "--raw")...)
	expect(t, r, 0)
	checkClean(t, "call --raw", r.out)
	var res struct{ Content []struct{ Text string } }
	if err := json.Unmarshal([]byte(r.out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || res.Content[0].Text != "painted"+hostile.Escapes+"\nred" {
		t.Errorf("call --raw: %+v", res)
	}
}
