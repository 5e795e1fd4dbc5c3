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

// A server that crashed is quoted by its error line, not the frames of
// its stack trace: Node's (after the source around the error), Python's,
// Go's; and it is known to have crashed.
func TestTailQuotesACrashByItsError(t *testing.T) {
	for _, c := range []struct {
		name, stderr string
		want         []string
	}{
		{"node", "/srv/index.js:3\n  const x = {\n            ^\n\nSyntaxError: Unexpected token '}'\n" +
			"    at internalCompileFunction (node:internal/vm:76:18)\n    at wrapSafe (node:internal/modules/cjs/loader:1283:20)\n" +
			"    at Module._compile (node:internal/modules/cjs/loader:1328:27)\n    at Module._extensions..js (node:internal/modules/cjs/loader:1422:10)\n" +
			"    at Module.load (node:internal/modules/cjs/loader:1203:32)\n    at Module._load (node:internal/modules/cjs/loader:1019:12)\n\nNode.js v20.11.0\n",
			[]string{"SyntaxError: Unexpected token '}'", "Node.js v20.11.0"}},
		{"python", "starting\nTraceback (most recent call last):\n  File \"/srv/main.py\", line 3, in <module>\n    main()\n" +
			"  File \"/srv/main.py\", line 2, in main\n    import nonexistent\nModuleNotFoundError: No module named 'nonexistent'\n",
			[]string{"starting", "ModuleNotFoundError: No module named 'nonexistent'"}},
		{"go", "panic: no config\n\ngoroutine 1 [running]:\nmain.main()\n\t/srv/main.go:9 +0x25\nexit status 2\n",
			[]string{"panic: no config"}},
	} {
		var tl tail
		tl.Write([]byte(c.stderr))
		if got := tl.last(); !slices.Equal(got, c.want) || !tl.crashed {
			t.Errorf("%s: last = %q, crashed %v; want %q, crashed", c.name, got, tl.crashed, c.want)
		}
	}
	var tl tail
	tl.Write([]byte("fatal: no configuration\n  indented, but no trace\n"))
	if got := tl.last(); len(got) != 2 || tl.crashed {
		t.Errorf("no trace: last = %q, crashed %v", got, tl.crashed)
	}
}
