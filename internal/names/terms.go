package names

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// words calls yield with each word of s, as written, in order. A word is
// a run of letters and digits, split where the case turns as identifiers
// are written: "listFiles" and "HTTPServer" are two words each,
// "list_files", "list-files" and "files.list" likewise, while "utf8",
// "s3" and "URLs" stay whole; a Chinese or Japanese character is a word.
// It reads at most maxText bytes of s.
func words(s string, yield func(string)) {
	if len(s) > maxText {
		s = s[:maxText]
	}
	start := -1 // the byte where the current word began
	var prev rune
	for i, r := range s {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			if start >= 0 {
				yield(s[start:i])
				start = -1
			}
		case r >= 0x2e80 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana):
			// Chinese and Japanese are written without spaces: each
			// character is a word of its own.
			if start >= 0 {
				yield(s[start:i])
			}
			yield(s[i : i+utf8.RuneLen(r)])
			start = -1
		case start < 0:
			start = i
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			// camelCase: a capital after a small letter starts a word.
			yield(s[start:i])
			start = i
		case unicode.IsLower(r) && unicode.IsUpper(prev) && i-start > utf8.RuneLen(prev) && lowerRun(s[i:]) > 1:
			// HTTPServer: the last capital of a run starts the next word
			// (but URLs is one word).
			j := i - utf8.RuneLen(prev)
			yield(s[start:j])
			start = j
		}
		prev = r
	}
	if start >= 0 {
		yield(s[start:])
	}
}

// lowerRun returns how many small letters s starts with, up to two.
func lowerRun(s string) int {
	n := 0
	for _, r := range s {
		if n == 2 || !unicode.IsLower(r) {
			break
		}
		n++
	}
	return n
}

// maxText bounds the bytes of one text (a name, a description, a query)
// that are read for words: a server's descriptions are hostile, and the
// first 16 KiB of a description say what a tool is for.
const maxText = 16 << 10

// stem returns the term of the word w, which a search compares: "" for a
// stop word ("a", "the", "to"), else w lower-cased and stemmed by the
// Snowball English stemmer ("Files" and "filing" both "file").
func stem(w string) string {
	w = strings.ToLower(w)
	if english.IsStopWord(w) {
		return ""
	}
	return english.Stem(w, true)
}
