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
	if a, b := ids.mac(taskHandle{"ab", "c", "x"}), ids.mac(taskHandle{"a", "bc", "x"}); bytes.Equal(a, b) {
		t.Errorf("neighbours share a MAC: %x", a)
	}
}
