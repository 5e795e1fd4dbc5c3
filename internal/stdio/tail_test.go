package stdio

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/redact"
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

// Proves that a secret is masked wherever the connection keeps or passes on
// the server's words: in the tail of its stderr and the lines it wrote to
// stdout, also where a line is cut inside the secret, and in the stderr it
// passes on, also when the secret comes in two writes.
func TestSecretsMasked(t *testing.T) {
	const key = "sk-the-env-value-42"
	secrets := redact.Secrets{}.With(key)
	tl := tail{secrets: secrets}
	tl.Write([]byte("using " + key + "\n" + strings.Repeat("x", 4*maxTailLine-3) + key + "\nhalf " + key[:5]))
	tl.Write([]byte(key[5:]))
	j := junk{secrets: secrets}
	j.add([]byte("key=" + key))
	for _, l := range append(tl.last(), j.last()...) {
		if strings.Contains(l, key[:6]) {
			t.Errorf("kept %q", l)
		}
	}
	if got := tl.last()[0]; got != "using …" {
		t.Errorf("first line %q", got)
	}
	var out strings.Builder
	m := &maskedLines{w: &out, secrets: secrets}
	for _, w := range []string{"a " + key[:7], key[7:] + " b\nc " + key} {
		m.Write([]byte(w))
	}
	m.Flush()
	if got, want := out.String(), "a … b\nc …"; got != want {
		t.Errorf("passed on %q, want %q", got, want)
	}
}
