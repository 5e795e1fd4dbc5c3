package gateway

import (
	"bytes"
	"reflect"
	"testing"
)

// A request state reads back, for its client's call of its tool, as the
// state it was sealed from, under its key or after a rotation; altered at
// any byte, read for another client or tool, under another key, broken by
// a line, or a task id's MAC in place of its own, it is refused.
func TestTaskStatesAreBoundByTheirMAC(t *testing.T) {
	oldKey, newKey := bytes.Repeat([]byte("o"), TaskKeySize), bytes.Repeat([]byte("n"), TaskKeySize)
	ids := newTaskIDs(oldKey)
	st := taskState{Server: "demo", Client: "alice", Name: "demo_tag_report", Tool: "tag_report", Task: "T1", Answered: []string{"tag"}}
	s, err := ids.sealState(st)
	if err != nil {
		t.Fatal(err)
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
		{"a task id's MAC", s[:len(s)-22] + b64.EncodeToString(mac(oldKey, taskHandle{"demo", "alice", "T1"})), "alice", "demo_tag_report", ids},
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
