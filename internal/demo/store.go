package demo

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// note is one entry in the store. Notes are values: the store hands out
// copies so callers can format them without holding the lock.
type note struct {
	ID    int      `json:"id"`
	Title string   `json:"title"`
	Body  string   `json:"body"`
	Tags  []string `json:"tags,omitempty"`
}

// store is the notes database behind one [New] server: in memory, or in a
// file ([WithNotesFile]) that every server given it shares, in this process
// or another. Tool calls from concurrent sessions (streamable HTTP shares
// one server) all land here, hence the mutex.
type store struct {
	mu    sync.Mutex
	path  string // "": in memory
	state notes  // in memory: the notes; with a file, what it held when last read
}

// notes is what a store holds, as its file holds it.
type notes struct {
	// NextID is the id of the next note added. Ids are never reused, so
	// an id a model saw earlier can't silently start naming a different
	// note after a delete.
	NextID int `json:"nextId"`
	// Notes are ordered by id, which is also creation order, so listings
	// are stable across calls.
	Notes []note `json:"notes"`
}

func newStore(path string) *store {
	return &store{path: path, state: notes{NextID: 1}}
}

// view returns the notes as they stand: read again from the file, if the
// store has one, as another server may have changed it.
func (s *store) view() (notes, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.load(); err != nil {
		return notes{}, err
	}
	return notes{NextID: s.state.NextID, Notes: slices.Clone(s.state.Notes)}, nil
}

// update changes the notes with fn and writes them back whole.
func (s *store) update(fn func(*notes)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.load(); err != nil {
		return err
	}
	next := s.state
	next.Notes = slices.Clone(next.Notes)
	fn(&next)
	if err := s.save(next); err != nil {
		return err
	}
	s.state = next
	return nil
}

// load reads the file, if the store has one; a file not made yet holds no
// notes.
func (s *store) load() error {
	if s.path == "" {
		return nil
	}
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		s.state = notes{NextID: 1}
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the notes: %w", err)
	}
	var n notes
	if err := json.Unmarshal(data, &n); err != nil {
		return fmt.Errorf("the notes file %s is not valid (remove it, or run mcpbridge serve-demo --reset): %w", s.path, err)
	}
	s.state = notes{NextID: max(n.NextID, 1), Notes: n.Notes}
	return nil
}

// save writes n to the file, if the store has one, whole or not at all:
// to a file beside it, then renamed over it, so that a server reading it
// meanwhile, or running at once, never sees half of it.
func (s *store) save(n notes) error {
	if s.path == "" {
		return nil
	}
	data, err := json.MarshalIndent(n, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("saving the notes: %w", err)
	}
	f, err := os.CreateTemp(dir, ".demo-notes-*")
	if err != nil {
		return fmt.Errorf("saving the notes: %w", err)
	}
	_, err = f.Write(append(data, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), s.path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("saving the notes: %w", err)
	}
	return nil
}

// add stores a note and returns it with its assigned id.
func (s *store) add(title, body string, tags []string) (note, error) {
	var n note
	err := s.update(func(all *notes) {
		n = note{ID: all.NextID, Title: title, Body: body, Tags: slices.Clone(tags)}
		all.NextID++
		all.Notes = append(all.Notes, n)
	})
	return n, err
}

// get returns the note with id, and whether there is one.
func (s *store) get(id int) (note, bool, error) {
	all, err := s.view()
	if err != nil {
		return note{}, false, err
	}
	i := slices.IndexFunc(all.Notes, func(n note) bool { return n.ID == id })
	if i < 0 {
		return note{}, false, nil
	}
	return all.Notes[i], true, nil
}

// remove reports whether a note was actually deleted.
func (s *store) remove(id int) (bool, error) {
	removed := false
	err := s.update(func(all *notes) {
		before := len(all.Notes)
		all.Notes = slices.DeleteFunc(all.Notes, func(n note) bool { return n.ID == id })
		removed = len(all.Notes) < before
	})
	return removed, err
}

// all returns every note ordered by id.
func (s *store) all() ([]note, error) {
	all, err := s.view()
	return all.Notes, err
}

// search matches query case-insensitively as a substring of the title, the
// body or any tag.
func (s *store) search(query string) ([]note, error) {
	all, err := s.all()
	q := strings.ToLower(query)
	return slices.DeleteFunc(all, func(n note) bool { return !n.matches(q) }), err
}

func (n note) matches(lowerQuery string) bool {
	if strings.Contains(strings.ToLower(n.Title), lowerQuery) ||
		strings.Contains(strings.ToLower(n.Body), lowerQuery) {
		return true
	}
	return slices.ContainsFunc(n.Tags, func(t string) bool {
		return strings.Contains(strings.ToLower(t), lowerQuery)
	})
}

// line is the one-line form used by list_notes and search_notes:
// "#1 title [tag, tag]". The brackets are left out when there are no tags.
func (n note) line() string {
	if len(n.Tags) == 0 {
		return fmt.Sprintf("#%d %s", n.ID, n.Title)
	}
	return fmt.Sprintf("#%d %s [%s]", n.ID, n.Title, strings.Join(n.Tags, ", "))
}

// text is the full form returned by get_note.
func (n note) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s\n", n.ID, n.Title)
	if len(n.Tags) > 0 {
		fmt.Fprintf(&b, "tags: %s\n", strings.Join(n.Tags, ", "))
	}
	b.WriteString("\n")
	b.WriteString(n.Body)
	return b.String()
}

// markdown renders one note as a markdown section for the notes:// resources.
func (n note) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## #%d %s\n\n", n.ID, n.Title)
	if len(n.Tags) > 0 {
		fmt.Fprintf(&b, "Tags: %s\n\n", strings.Join(n.Tags, ", "))
	}
	if n.Body != "" {
		b.WriteString(n.Body)
		b.WriteString("\n")
	}
	return b.String()
}

// cleanTags lower-cases and trims tags and drops empty and duplicate ones, so
// that "Home" and "home " count as one tag in note_stats instead of two.
func cleanTags(tags []string) []string {
	var out []string
	for _, t := range tags {
		t = strings.ToLower(strings.TrimSpace(t))
		if t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}
