package demo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// NotesEnv is the environment variable that names the file the command's
// demo server keeps its notes in, in place of [DefaultNotesFile]'s.
const NotesEnv = "MCPBRIDGE_DEMO_NOTES"

// An Option configures a demo server ([New]). Zero is the default in
// every option: WithNotesFile("") keeps the notes in memory, as no option
// does.
type Option func(*config)

type config struct {
	notes  string               // the notes file; "": in memory
	tracer trace.TracerProvider // trace.go; nil: not traced
	now    func() time.Time     // the tasks' clock; nil: time.Now
}

// WithNotesFile keeps the server's notes in the file at path, so that
// they outlive the server: every server given the same file, in this
// process or another, one after the other or at once, sees the notes the
// others added. The file is read at every call and written whole at every
// change (to a file beside it, renamed over it), so that it is never seen
// half written; two changes made at the very same moment by two processes
// may keep only one of them. Without it, or with "", the notes live in
// memory as long as the server.
func WithNotesFile(path string) Option { return func(c *config) { c.notes = path } }

// DefaultNotesFile returns where the command's demo server keeps its
// notes: the file [NotesEnv] names if it is set, else demo-notes.json in
// the mcpbridge directory of the user's cache (os.UserCacheDir).
func DefaultNotesFile() (string, error) {
	if path := os.Getenv(NotesEnv); path != "" {
		return path, nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("demo: no place for the notes (set %s to a file): %w", NotesEnv, err)
	}
	return filepath.Join(dir, "mcpbridge", "demo-notes.json"), nil
}

// ResetNotes forgets the notes kept in the file at path: it removes the
// file, if there is one.
func ResetNotes(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("demo: forgetting the notes: %w", err)
	}
	return nil
}
