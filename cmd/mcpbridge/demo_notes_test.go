package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The sequence of docs/cli.md works as written: each command starts a new demo
// server, and the notes one added are there for the next, until
// serve-demo --reset forgets them.
func TestDemoNotesKeptBetweenCommands(t *testing.T) {
	dir, cache := t.TempDir(), ownCache(t)
	expect(t, mcpbridge(t, dir, "", cache, "call", "add_note", `{"title":"milk","body":"buy milk"}`), 0, "added note #1: milk")
	expect(t, mcpbridge(t, dir, "", cache, "read", "notes://all"), 0, "## #1 milk", "buy milk")
	expect(t, mcpbridge(t, dir, "", cache, "call", "get_note", `{"id":1}`), 0, "#1 milk")
	r := mcpbridge(t, dir, "", cache, "serve-demo", "--reset")
	expect(t, r, 0, "demo notes forgotten ("+demoNotes(cache)+")")
	expect(t, mcpbridge(t, dir, "", cache, "read", "notes://all"), 0, "No notes yet.")
	// MCPBRIDGE_DEMO_NOTES points the demo elsewhere.
	notes := filepath.Join(dir, "elsewhere.json")
	expect(t, mcpbridge(t, dir, "", append(cache, "MCPBRIDGE_DEMO_NOTES="+notes), "call", "add_note", `{"title":"eggs","body":"b"}`), 0, "added note #1: eggs")
	if _, err := os.Stat(notes); err != nil {
		t.Errorf("the notes are not in %s: %v", notes, err)
	}
}

// Commands adding notes at once leave a notes file every later command
// reads.
func TestDemoNotesAtOnce(t *testing.T) {
	dir, cache := t.TempDir(), ownCache(t)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			cmd := exec.Command(bin, "call", "add_note", fmt.Sprintf(`{"title":"n%d","body":"b"}`, i))
			cmd.Dir, cmd.Env = dir, append(os.Environ(), cache...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("add_note %d: %v\n%s", i, err, out)
			}
		})
	}
	wg.Wait()
	expect(t, mcpbridge(t, dir, "", cache, "call", "list_notes"), 0, "#")
	data, err := os.ReadFile(demoNotes(cache))
	if err != nil || !json.Valid(data) {
		t.Fatalf("the notes file: %q, %v", data, err)
	}
}

// demoNotes is the file the demo keeps its notes in for runs in the
// environment cache (ownCache).
func demoNotes(cache []string) string {
	for _, kv := range cache {
		if dir, ok := strings.CutPrefix(kv, "XDG_CACHE_HOME="); ok {
			return filepath.Join(dir, "mcpbridge", "demo-notes.json")
		}
	}
	return ""
}
