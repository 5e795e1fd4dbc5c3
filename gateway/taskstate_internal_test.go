package gateway

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// A request state reads back, for its client's call of its tool, as the
// state it was sealed from, under its key or after a rotation, and says
// nothing of it to the client; altered at any byte, cut short, read for
// another client or tool, under another key, or broken by a line, it is
// refused.
func TestTaskStatesAreSealed(t *testing.T) {
	oldKey, newKey := bytes.Repeat([]byte("o"), TaskKeySize), bytes.Repeat([]byte("n"), TaskKeySize)
	ids := newTaskIDs(oldKey)
	st := taskState{Server: "demo", Client: "alice", Name: "demo_tag_report", Tool: "tag_report", Task: "T1", Answered: []string{"tag"}}
	s, err := ids.sealState(st)
	if err != nil {
		t.Fatal(err)
	}
	body, err := b64.DecodeString(strings.TrimPrefix(s, statePrefix))
	if err != nil || bytes.Contains(body, []byte("alice")) || bytes.Contains(body, []byte("tag_report")) {
		t.Errorf("%q: readable (%v)", body, err)
	}
	for _, c := range []struct {
		name string
		ids  taskIDs
	}{{"its key", ids}, {"rotated", newTaskIDs(newKey, oldKey)}} {
		if got, ok := c.ids.openState(s, "alice", "demo_tag_report"); !ok || !reflect.DeepEqual(got, st) {
			t.Errorf("%s: %q read back as %+v, %v", c.name, s, got, ok)
		}
	}
	for _, c := range []struct {
		name, s, client, tool string
		ids                   taskIDs
	}{
		{"another client", s, "bob", "demo_tag_report", ids},
		{"another tool", s, "alice", "demo_broken_job", ids},
		{"another key", s, "alice", "demo_tag_report", newTaskIDs(newKey)},
		{"a line break", s[:len(statePrefix)+4] + "\n" + s[len(statePrefix)+4:], "alice", "demo_tag_report", ids},
		{"cut short", s[:len(s)-1], "alice", "demo_tag_report", ids},
		{"no more than its prefix", statePrefix, "alice", "demo_tag_report", ids},
	} {
		if got, ok := c.ids.openState(c.s, c.client, c.tool); ok {
			t.Errorf("%s: taken as %+v", c.name, got)
		}
	}
	for i := range len(s) {
		for _, c := range "A_." {
			if s[i] == byte(c) {
				continue
			}
			if got, ok := ids.openState(s[:i]+string(c)+s[i+1:], "alice", "demo_tag_report"); ok {
				t.Errorf("%q with %q at %d: taken as %+v", s, c, i, got)
			}
		}
	}
}

// Whatever a client sends as a request state, reading it ends with the
// state the gateway sealed for that client's call, or a refusal, never a
// panic; and every state sealed under a key the gateway holds reads back
// as it was.
func FuzzTaskStates(f *testing.F) {
	ids := newTaskIDs(bytes.Repeat([]byte("n"), TaskKeySize), bytes.Repeat([]byte("o"), TaskKeySize))
	old := newTaskIDs(bytes.Repeat([]byte("o"), TaskKeySize))
	st := taskState{Server: "demo", Client: "alice", Name: "demo_tag_report", Tool: "tag_report", Task: "T1", Answered: []string{"tag"}}
	for _, t := range []taskIDs{ids, old} {
		sealed, err := t.sealState(st)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(st.Server, st.Client, st.Name, st.Task, sealed)
	}
	f.Add("", "", "", "", statePrefix)
	f.Add("s", "c", "n", "i", statePrefix+"AAAA\nAAAA")
	f.Add("s", "c", "n", "i", "a server's own state")
	f.Fuzz(func(t *testing.T, server, client, name, task, presented string) {
		want := taskState{Server: server, Client: client, Name: name, Tool: name, Task: task}
		for _, by := range []taskIDs{ids, old} {
			sealed, err := by.sealState(want)
			if err != nil {
				t.Fatalf("%+v: %v", want, err)
			}
			got, ok := ids.openState(sealed, client, name)
			// Names come from JSON and the config, in UTF-8; JSON would
			// keep other bytes as U+FFFD, so such a state opens for no
			// client, or reads back changed.
			utf := utf8.ValidString(server) && utf8.ValidString(client) && utf8.ValidString(name) && utf8.ValidString(task)
			if utf && (!ok || !reflect.DeepEqual(got, want)) {
				t.Fatalf("%+v sealed as %q read back as %+v, %v", want, sealed, got, ok)
			}
		}
		if got, ok := ids.openState(presented, client, name); ok && (got.Client != client || got.Name != name) {
			t.Fatalf("%q taken for %q's call of %q as %+v", presented, client, name, got)
		}
	})
}
