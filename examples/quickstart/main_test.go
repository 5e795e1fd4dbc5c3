package main

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
)

func TestMain(m *testing.M) {
	os.Exit(proctest.RunWithDemo(m))
}

// The main job from Go runs end to end on the demo server, on notes of its
// own: run twice, it adds its note as the first both times, and leaves
// none in the demo's own notes (in HOME, see proctest.DemoOnPath).
func TestQuickstart(t *testing.T) {
	for range 2 {
		quickstart(t)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".json") {
			kept = append(kept, path)
		}
		return nil
	})
	if len(kept) > 0 {
		t.Errorf("the quickstart left notes in the demo's own: %v", kept)
	}
}

func quickstart(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"connected to mcpbridge-demo",
		"add_note",
		"added note #1: Try mcpbridge",
		"#1 Try mcpbridge [go]",
		"<image/png image,",
		`error for the model: tool "get_note" failed: no note with id 42`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// Without mcpbridge on PATH, the quickstart says how to install it.
func TestQuickstartSaysHowToInstallTheDemo(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := run(context.Background(), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "go install github.com/mcpbridge/mcpbridge/cmd/mcpbridge@latest") {
		t.Fatalf("run without mcpbridge on PATH: %v", err)
	}
}
