package untrusted_test

import (
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/untrusted"
)

func TestText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text, é, 日本", "plain text, é, 日本"},
		{"tab\tkept", "tab\tkept"},
		{"a\x1b[2Jb\x1b[1;31mc\x1b[0m", "abc"},                  // CSI
		{"a\x1b[?1049hb", "ab"},                                 // private CSI
		{"a\x1b]0;title\x07b", "ab"},                            // OSC ended by BEL
		{"a\x1b]52;c;cHduZWQ=\x1b\\b", "ab"},                    // OSC 52 ended by ST
		{"a\x1bP+q544e\x1b\\b", "ab"},                           // DCS
		{"a\x1b_apc\x1b\\b\x1bXsos\x1b\\c\x1b^pm\x07d", "abcd"}, // APC, SOS, PM
		{"a\x1b]0;never ends", "a"},                             // unterminated: to the end
		{"a\x1b]0;cut\x1b[2Jb", "ab"},                           // a string cut by another sequence
		{"a\x1b]0;x\x18b", "ab"},                                // CAN cancels
		{"a\x1bcb\x1b(Bc\x1b7d", "abcd"},                        // two-character and charset sequences
		{"a\x1b", "a"},                                          // a lone ESC at the end
		{"a\u009b31mb\u009d0;t\u009cc", "abc"},                  // 8-bit CSI and OSC with ST
		{"a\u0090q\u009cb\u0081c", "abc"},                       // 8-bit DCS, another C1
		{"a\x00b\x07c\x7fd\x08e", "abcde"},                      // C0 and DEL
		{"1\r\n2\r3\v4\f5\u00856\u20287\u20298\n9", "1\n2\n3\n4\n5\n6\n7\n8\n9"},
		{"a\u200bb\u200dc\u202ed\u2066e\u2069f\ufeffg\u00adh", "abcdefgh"}, // format characters
		{"a\U000E0041\U000E0042b", "ab"},                                   // tag characters
		{"a\ufe0fb\U000E0100c\u115fd\u3164e", "abcde"},                     // variation selectors, fillers
		{"a\xffb", "a\ufffdb"},                                             // invalid UTF-8
		{"\xc2", "\ufffd"},                                                 // a cut C1 control
	} {
		if got := untrusted.Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"  one\n\n## two\u2028three\u00a0 four\t", "one ## two three four"},
		{"a\x1b[2J\nb", "a b"},
		{"\u200b", ""},
	} {
		if got := untrusted.Line(c.in); got != c.want {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestQuote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"one", "> one"},
		{"one\n\n## two", "> one\n>\n> ## two"},
		{"a\u2028## b\r\nc\x1b[2J", "> a\n> ## b\n> c"},
	} {
		if got := untrusted.Quote(c.in); got != c.want {
			t.Errorf("Quote(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestCut(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"héllo", 5, "héllo"},
		{"héllo", 2, "hé […]"},
		{"héllo", 0, "héllo"},
		{"héllo", -1, "héllo"},
		// At the end of a sentence or a line in the last fifth, else of
		// a word, never inside one unless no word ends there.
		{"The first sentence. The second one", 20, "The first sentence. […]"},
		{"alpha beta gamma delta epsilon", 20, "alpha beta gamma […]"},
		{"a short line\nnext words", 14, "a short line […]"},
		{"alphabet soup gammadelta", 20, "alphabet soup gammad […]"},
		{"https://example.com/a/very/long/path", 20, "https://example.com/ […]"},
	} {
		if got := untrusted.Cut(c.in, c.n); got != c.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

// Whatever the input, Text leaves nothing invisible but "\n" and "\t",
// Line leaves no line break, both are idempotent, and every line of Quote
// begins with ">".
func FuzzText(f *testing.F) {
	for _, s := range []string{"a\x1b[2Jb", "\x1b]52;c;x\x07", "\u009b1m", "\r\n\u2028", "\U000E0041", "\x1b", "\xc2\x9d", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		text := untrusted.Text(s)
		for _, r := range text {
			if r != '\n' && r != '\t' && untrusted.Invisible(r) {
				t.Fatalf("Text(%q) = %q holds %U", s, text, r)
			}
		}
		if again := untrusted.Text(text); again != text {
			t.Fatalf("Text not idempotent: %q, then %q", text, again)
		}
		for _, l := range strings.Split(untrusted.Quote(s), "\n") {
			if l != ">" && !strings.HasPrefix(l, "> ") {
				t.Fatalf("Quote(%q) has the line %q", s, l)
			}
		}
		line := untrusted.Line(s)
		if strings.ContainsAny(line, "\n\t") || untrusted.Line(line) != line {
			t.Fatalf("Line(%q) = %q", s, line)
		}
	})
}
