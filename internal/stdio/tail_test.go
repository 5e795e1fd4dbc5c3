package stdio

import (
	"slices"
	"strings"
	"testing"
)

// The tail keeps the last lines whole across writes, cut and cleaned, and
// the line still being written.
func TestTail(t *testing.T) {
	var tl tail
	for _, w := range []string{"one\ntw", "o\n\n  \nthree\x1b[31m red\nfour\nfive\nsix\nsev", "en"} {
		tl.Write([]byte(w))
	}
	want := []string{"three red", "four", "five", "six", "seven"}
	if got := tl.last(); !slices.Equal(got, want) {
		t.Errorf("last = %q, want %q", got, want)
	}
	tl.Write([]byte("\n" + strings.Repeat("x", 10*maxTailLine) + "\n"))
	got := tl.last()
	if len(got) != maxTailLines || got[len(got)-1] != strings.Repeat("x", maxTailLine)+"…" {
		t.Errorf("after a long line: %q", got)
	}
}
