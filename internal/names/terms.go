package names

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// words calls yield with each word of s, lower-cased, in order. A word is
// a run of letters and digits, split where the case turns as identifiers
// are written: "listFiles" and "HTTPServer" are two words each,
// "list_files", "list-files" and "files.list" likewise, while "utf8",
// "s3" and "URLs" stay whole. It reads at most maxText bytes of s.
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
				yield(strings.ToLower(s[start:i]))
				start = -1
			}
		case start < 0:
			start = i
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			// camelCase: a capital after a small letter starts a word.
			yield(strings.ToLower(s[start:i]))
			start = i
		case unicode.IsLower(r) && unicode.IsUpper(prev) && i-start > utf8.RuneLen(prev) && lowerRun(s[i:]) > 1:
			// HTTPServer: the last capital of a run starts the next word
			// (but URLs is one word).
			j := i - utf8.RuneLen(prev)
			yield(strings.ToLower(s[start:j]))
			start = j
		}
		prev = r
	}
	if start >= 0 {
		yield(strings.ToLower(s[start:]))
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

// A stemmer turns words into the terms a search compares: stop words
// ("a", "the", "to") are dropped and the rest stemmed by the Snowball
// English stemmer ("files" and "filing" both "file"). It remembers each
// word it has seen, since a catalog repeats its words many times over.
type stemmer map[string]string

// term returns w's term, or "" for a stop word.
func (s stemmer) term(w string) string {
	if t, ok := s[w]; ok {
		return t
	}
	t := stem(w)
	if len(s) < maxVocabulary {
		s[w] = t
	}
	return t
}

// stem returns w's term, or "" for a stop word, remembering nothing.
func stem(w string) string {
	if english.IsStopWord(w) {
		return ""
	}
	return english.Stem(w, true)
}

// maxVocabulary bounds the words a stemmer remembers; past it, a word is
// stemmed each time it comes.
const maxVocabulary = 1 << 20
