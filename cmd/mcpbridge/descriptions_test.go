package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
)

// A description longer than the cap (2048 characters unless --max-description
// or a server's "maxDescription" says otherwise) is cut at the end of a
// sentence or a word, never inside one, and lint says each cut: the tool,
// from how many characters to how many.
func TestLongDescriptions(t *testing.T) {
	dir := t.TempDir()
	think := func(r result) string {
		t.Helper()
		var tools []struct{ Name, Description string }
		if err := json.Unmarshal([]byte(r.out), &tools); err != nil {
			t.Fatalf("tools --json: %v\n%s", err, r.out)
		}
		for _, d := range tools {
			if strings.HasSuffix(d.Name, "think") {
				return d.Description
			}
		}
		t.Fatalf("no tool think in %s", r.out)
		return ""
	}
	r := mcpbridge(t, dir, "", nil, withServer(t, "long-description", "tools", "--json")...)
	expect(t, r, 0)
	cut := think(r)
	n := utf8.RuneCountInString(strings.TrimSuffix(cut, " […]"))
	if !strings.HasSuffix(cut, "off. […]") || n > 2048 || n < 2048*4/5 || !strings.HasPrefix(hostile.LongDescription, strings.TrimSuffix(cut, " […]")) {
		t.Errorf("cut to %d characters, ending %q: want the end of a sentence within 2048", n, cut[max(len(cut)-40, 0):])
	}

	r = mcpbridge(t, dir, "", nil, withServer(t, "long-description", "tools", "--json", "--max-description", "3000")...)
	expect(t, r, 0)
	if got := think(r); got != hostile.LongDescription {
		t.Errorf("--max-description 3000: %d characters, want the whole 2781", utf8.RuneCountInString(got))
	}
	self, _ := os.Executable()
	cfg := writeConfig(t, dir, "long.json", fmt.Sprintf(`{"mcpServers": {"seq": {"command": %q, "maxDescription": 3000, "env": {%q: "long-description", "GORACE": "atexit_sleep_ms=0"}}}}`, self, hostile.ChildEnv))
	r = mcpbridge(t, dir, "", nil, "tools", "--json", "--config", cfg)
	expect(t, r, 0)
	if got := think(r); got != hostile.LongDescription {
		t.Errorf(`"maxDescription": 3000: %d characters, want the whole 2781`, utf8.RuneCountInString(got))
	}

	r = mcpbridge(t, dir, "", nil, withServer(t, "long-description", "lint", "--long", "--vendor", "openai")...)
	expect(t, r, 0)
	want := fmt.Sprintf(`changed all: server "mcpbridge" tool "think": description cut from 2781 to %d characters`, n)
	if !strings.Contains(r.out, want) || strings.Count(r.out, "description cut") != 1 {
		t.Errorf("lint:\n%s\nwant the cut said once: %s", r.out, want)
	}
	r = mcpbridge(t, dir, "", nil, withServer(t, "long-description", "lint", "--long", "--vendor", "openai", "--max-description", "3000")...)
	expect(t, r, 0)
	if strings.Contains(r.out, "description cut") {
		t.Errorf("lint --max-description 3000 says a cut:\n%s", r.out)
	}
	r = mcpbridge(t, dir, "", nil, withServer(t, "long-description", "tools", "--max-description", "-1")...)
	expect(t, r, 2, "--max-description")
}
