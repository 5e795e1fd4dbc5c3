package gateway

import (
	"bytes"
	"strings"
	"testing"
)

// A task id reads back as the handle it was made of, under the key it was
// made with only; no part of it can be changed, nor moved into its
// neighbour, without the id being refused.
func TestTaskIDsAreBoundByTheirMAC(t *testing.T) {
	ids := newTaskIDs(bytes.Repeat([]byte("k"), TaskKeySize))
	for _, h := range []taskHandle{
		{"demo", "alice", "TASK1"},
		{"a.b", "", "id.with.dots"},
		{"ab", "c", "x"},
		{"a", "bc", "x"},
		{"a", "b", "cx"},
	} {
		s := ids.format(h)
		if got, ok := ids.parse(s); !ok || got != h {
			t.Errorf("%+v: %q read back as %+v, %v", h, s, got, ok)
		}
		if _, ok := newTaskIDs(nil).parse(s); ok {
			t.Errorf("%+v: taken under another key", h)
		}
		for i := range len(s) {
			for _, c := range "A_." {
				if s[i] == byte(c) {
					continue
				}
				if got, ok := ids.parse(s[:i] + string(c) + s[i+1:]); ok {
					t.Errorf("%q with %q at %d: taken as %+v", s, c, i, got)
				}
			}
		}
		parts := strings.SplitN(s, ".", 4)
		if _, ok := ids.parse(strings.Join([]string{parts[0], parts[1], parts[2][:len(parts[2])-1], parts[3]}, ".")); ok {
			t.Errorf("%+v: taken with its MAC cut short", h)
		}
	}
	if a, b := mac(ids.keys[0], taskHandle{"ab", "c", "x"}), mac(ids.keys[0], taskHandle{"a", "bc", "x"}); bytes.Equal(a, b) {
		t.Errorf("neighbours share a MAC: %x", a)
	}
}

// Under several keys, an id is made with the first and read back under
// any; an id of a key not among them is refused.
func TestTaskIDsTakeEveryKey(t *testing.T) {
	oldKey, newKey := bytes.Repeat([]byte("o"), TaskKeySize), bytes.Repeat([]byte("n"), TaskKeySize)
	h := taskHandle{"demo", "alice", "TASK1"}
	old, rotated := newTaskIDs(oldKey), newTaskIDs(newKey, oldKey)
	for _, c := range []struct {
		name string
		ids  taskIDs
		id   string
		good bool
	}{
		{"the old key's id, rotated", rotated, old.format(h), true},
		{"the rotated id, under the new key", newTaskIDs(newKey), rotated.format(h), true},
		{"the rotated id, under the old key", old, rotated.format(h), false},
		{"the old key's id, the old key dropped", newTaskIDs(bytes.Repeat([]byte("x"), TaskKeySize), newKey), old.format(h), false},
	} {
		if got, ok := c.ids.parse(c.id); ok != c.good || ok && got != h {
			t.Errorf("%s: %+v, %v", c.name, got, ok)
		}
	}
}

// FuzzTaskIDs gives parse any string a client may present as a task id,
// and format any handle a server's task may make: parse never panics, a
// handle with an id reads back as itself, under either key, and an id
// parse takes is the one format writes of what it read.
func FuzzTaskIDs(f *testing.F) {
	ids := newTaskIDs(bytes.Repeat([]byte("n"), TaskKeySize), bytes.Repeat([]byte("o"), TaskKeySize))
	old := newTaskIDs(bytes.Repeat([]byte("o"), TaskKeySize))
	for _, h := range []taskHandle{{"demo", "alice", "TASK1"}, {"a.b", "", "id.with.dots"}, {"\xff", "c\x00", "."}} {
		f.Add(h.server, h.client, h.id, ids.format(h))
		f.Add(h.server, h.client, h.id, old.format(h))
	}
	f.Add("", "", "", "...")
	f.Add("s", "c", "i", "ZGVtbw==.YWxpY2U.AAAA.x")
	f.Fuzz(func(t *testing.T, server, client, id, presented string) {
		h := taskHandle{server, client, id}
		for _, made := range []string{ids.format(h), old.format(h)} {
			if got, ok := ids.parse(made); ok != (id != "") || ok && got != h {
				t.Fatalf("%+v: %q read back as %+v, %v", h, made, got, ok)
			}
		}
		got, ok := ids.parse(presented)
		if ok && ids.format(got) != presented && old.format(got) != presented {
			t.Fatalf("%q: taken as %+v, which is written otherwise", presented, got)
		}
	})
}
