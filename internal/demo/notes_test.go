package demo

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Servers given one notes file share the notes, one after the other as
// the command's do, and a server without one keeps its own.
func TestNotesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache", "notes.json")
	first := connectTo(t, New(WithNotesFile(path)), nil)
	if got := callText(t, first, "add_note", map[string]any{"title": "milk", "body": "buy milk"}); got != "added note #1: milk" {
		t.Fatalf("add_note: %q", got)
	}
	second := connectTo(t, New(WithNotesFile(path)), nil)
	if got := callText(t, second, "get_note", map[string]any{"id": 1}); !strings.Contains(got, "buy milk") {
		t.Errorf("get_note on another server: %q", got)
	}
	callText(t, second, "delete_note", map[string]any{"id": 1})
	if got := callText(t, second, "add_note", map[string]any{"title": "eggs", "body": "b"}); got != "added note #2: eggs" {
		t.Errorf("an id was used again: %q", got)
	}
	if got := callText(t, first, "list_notes", nil); got != "#2 eggs" {
		t.Errorf("list_notes on the first server: %q", got)
	}
	if got := callText(t, connectInMemory(t, nil), "list_notes", nil); got != "no notes yet" {
		t.Errorf("a server without the file: %q", got)
	}
	if err := ResetNotes(path); err != nil {
		t.Fatal(err)
	}
	if got := callText(t, first, "list_notes", nil); got != "no notes yet" {
		t.Errorf("after ResetNotes: %q", got)
	}
	if err := ResetNotes(path); err != nil {
		t.Errorf("ResetNotes without a file: %v", err)
	}
}

// Servers adding notes at once never leave the file half written: every
// read of it meanwhile decodes, and so does the file at the end.
func TestNotesFileAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.json")
	var wg sync.WaitGroup
	for s := range 2 {
		cs := connectTo(t, New(WithNotesFile(path)), nil)
		wg.Go(func() {
			for i := range 20 {
				args := map[string]any{"title": fmt.Sprintf("s%d n%d", s, i), "body": "b"}
				if res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "add_note", Arguments: args}); err != nil || res.IsError {
					t.Errorf("add_note: %v", err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for range 200 {
			if data, err := os.ReadFile(path); err == nil && !json.Valid(data) {
				t.Errorf("a half-written file: %q", data)
				return
			}
		}
	})
	wg.Wait()
	var n notes
	data, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(data, &n) != nil || len(n.Notes) == 0 {
		t.Fatalf("the file at the end: %q, %v", data, err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".demo-notes-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A notes file that is not the demo's fails the calls that read it,
// saying how to start afresh.
func TestNotesFileUnreadable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	res := call(t, connectTo(t, New(WithNotesFile(path)), nil), "list_notes", nil)
	if !res.IsError || !strings.Contains(text(res), "serve-demo --reset") {
		t.Errorf("list_notes: %v %q", res.IsError, text(res))
	}
}

func TestDefaultNotesFile(t *testing.T) {
	t.Setenv(NotesEnv, "/somewhere/notes.json")
	if got, err := DefaultNotesFile(); err != nil || got != "/somewhere/notes.json" {
		t.Errorf("with %s set: %q, %v", NotesEnv, got, err)
	}
	t.Setenv(NotesEnv, "")
	t.Setenv("XDG_CACHE_HOME", "/cache")
	t.Setenv("HOME", "/home/me")
	want, _ := os.UserCacheDir()
	if got, err := DefaultNotesFile(); err != nil || got != filepath.Join(want, "mcpbridge", "demo-notes.json") {
		t.Errorf("DefaultNotesFile() = %q, %v", got, err)
	}
}
