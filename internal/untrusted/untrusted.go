package untrusted

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text returns s with every character a reader cannot see removed: escape
// sequences (CSI, OSC, DCS, SOS, PM, APC, in their 7-bit and 8-bit forms,
// and two-character ones such as ESC c) from their introducer to their end,
// control characters other than "\n" and "\t", and the characters
// [Invisible] names. Every line break ("\r\n", "\r", "\v", "\f", U+0085,
// U+2028, U+2029) becomes "\n", and an invalid UTF-8 byte becomes U+FFFD.
//
// An escape sequence that does not end is removed to the end of s: text
// split into pieces that are cleaned one by one never passes an escape,
// though a piece may then show the rest of a sequence as plain text.
func Text(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n', r == '\v', r == '\f', r == '\u0085', r == '\u2028', r == '\u2029':
			b.WriteByte('\n')
		case r == '\r':
			b.WriteByte('\n')
			if i+1 < len(s) && s[i+1] == '\n' {
				size++
			}
		case r == '\t':
			b.WriteByte('\t')
		case r == '\x1b' || (r >= 0x80 && r <= 0x9f):
			size = escapeLen(s[i:])
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case Invisible(r):
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Line returns [Text] of s on one line: every run of white space, line
// breaks included, becomes one space, and none leads or trails.
func Line(s string) string {
	return strings.Join(strings.Fields(Text(s)), " ")
}

// Quote returns [Text] of s with every line begun with "> " (an empty
// line with ">"), for a host that places a server's text among lines of
// its own: no line of the result can be one the host writes (a heading,
// the tag that ends a block), however the server spells a look-alike,
// since each is "> " and the server's words.
func Quote(s string) string {
	lines := strings.Split(Text(s), "\n")
	for i, l := range lines {
		if l == "" {
			lines[i] = ">"
		} else {
			lines[i] = "> " + l
		}
	}
	return strings.Join(lines, "\n")
}

// CutMark ends a text [Cut] shortened.
const CutMark = " […]"

// Cut returns s cut to at most n characters (runes), with [CutMark] after
// a cut so that a reader knows text is missing; n <= 0 means no bound. It
// is the one bound for a server's text where a host places it: a
// description, a line of the system prompt, a recorded tool result.
//
// A cut falls at the end of a sentence or a line if one ends in the last
// fifth of the n characters, else after the last word that ends there, so
// that no word is left half; only text with no such end there (a long URL,
// a script without spaces) is cut inside a word.
func Cut(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	end, low := 0, 0 // the byte offsets of rune n, and of rune n - n/5
	i := 0
	for pos := range s {
		if i == n-n/5 {
			low = pos
		}
		if i == n {
			end = pos
			break
		}
		i++
	}
	return strings.TrimRightFunc(s[:boundary(s, low, end)], unicode.IsSpace) + CutMark
}

// boundary returns where in s[low:end] to cut s: before the space that ends
// the last sentence or line there, else before the last space there, else
// at end.
func boundary(s string, low, end int) int {
	word := -1
	for q := end; q >= low && q > 0; q-- {
		r, _ := utf8.DecodeRuneInString(s[q:])
		if !unicode.IsSpace(r) {
			continue
		}
		if r == '\n' || strings.ContainsAny(s[q-1:q], ".!?:;") {
			return q
		}
		if word < 0 {
			word = q
		}
	}
	if word >= 0 {
		return word
	}
	return end
}

// Invisible reports whether r is a character a reader cannot see: a control
// character (C0, DEL or C1, "\n" and "\t" among them), or a Unicode
// default-ignorable character (a format character, a variation selector,
// or one of the other code points Unicode says to render as nothing).
func Invisible(r rune) bool {
	return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

// escapeLen returns the length of the escape sequence, or the lone control
// character, that s starts with: ESC or a C1 control.
func escapeLen(s string) int {
	var intro byte
	n := 1
	if s[0] == '\x1b' {
		if len(s) == 1 {
			return 1
		}
		intro, n = s[1], 2
	} else {
		// A C1 control, two bytes in UTF-8, stands for ESC and one of
		// '@' to '_'.
		intro, n = s[1]-0x80+'@', 2
	}
	switch intro {
	case '[':
		// Parameters and intermediates, then a final byte.
		return n + sequenceLen(s[n:], 0x3f, 0x40)
	case ']', 'P', 'X', '^', '_':
		return n + stringLen(s[n:])
	}
	if s[0] != '\x1b' {
		return n
	}
	// ESC, intermediates, one final byte: ESC c, ESC ( B, ESC 7.
	return 1 + sequenceLen(s[1:], 0x2f, 0x30)
}

// sequenceLen returns the length of the bytes from 0x20 to last that s
// starts with, and of the final byte, from first to 0x7e, that ends them,
// as much of it as s holds.
func sequenceLen(s string, last, first byte) int {
	n := 0
	for n < len(s) && s[n] >= 0x20 && s[n] <= last {
		n++
	}
	if n < len(s) && s[n] >= first && s[n] <= 0x7e {
		n++
	}
	return n
}

// stringLen returns the length of a control string (OSC, DCS, ...) up to
// and with its terminator: BEL, ST (ESC \ or U+009C), or CAN or SUB, which
// cancel it. A string cut short by another ESC ends before it; one that does
// not end runs to the end of s.
func stringLen(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\a', 0x18, 0x1a:
			return i + 1
		case '\x1b':
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i
		case 0xc2:
			if i+1 < len(s) && s[i+1] == 0x9c {
				return i + 2
			}
		}
	}
	return len(s)
}
