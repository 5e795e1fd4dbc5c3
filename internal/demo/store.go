package demo

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// note is one entry in the store. Notes are values: the store hands out
// copies so callers can format them without holding the lock.
type note struct {
	ID    int
	Title string
	Body  string
	Tags  []string
}

// store is the in-memory notes database behind one [New] server. Tool calls
// from concurrent sessions (streamable HTTP shares one server) all land here,
// hence the mutex.
type store struct {
	mu     sync.Mutex
	nextID int
	notes  map[int]note
}

func newStore() *store {
	return &store{nextID: 1, notes: make(map[int]note)}
}

// add stores a note and returns it with its assigned id. Ids are never
// reused, so an id a model saw earlier can't silently start naming a
// different note after a delete.
func (s *store) add(title, body string, tags []string) note {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := note{ID: s.nextID, Title: title, Body: body, Tags: slices.Clone(tags)}
	s.nextID++
	s.notes[n.ID] = n
	return n
}

func (s *store) get(id int) (note, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.notes[id]
	return n, ok
}

// remove reports whether a note was actually deleted.
func (s *store) remove(id int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.notes[id]
	delete(s.notes, id)
	return ok
}

// all returns every note ordered by id, which is also creation order, so
// listings are stable across calls.
func (s *store) all() []note {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]note, 0, len(s.notes))
	for _, n := range s.notes {
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b note) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// search matches query case-insensitively as a substring of the title, the
// body or any tag.
func (s *store) search(query string) []note {
	q := strings.ToLower(query)
	var out []note
	for _, n := range s.all() {
		if n.matches(q) {
			out = append(out, n)
		}
	}
	return out
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
