package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// maxArgsContext bounds the characters of the arguments an error quotes
// before the mistake.
const maxArgsContext = 30

// callArgs reads the arguments of call: text as given, or stdin for "-".
// Arguments that are not JSON are a usage error that says what is wrong and
// where, quoting the text up to the mistake: a shell's quoting breaks them
// often, and the user must see what the program received.
func callArgs(text string, stdin io.Reader) (json.RawMessage, error) {
	what, where := "the arguments", ""
	if text == "-" {
		data, err := io.ReadAll(stdin)
		if err != nil {
			return nil, err
		}
		text, what, where = string(data), "the arguments on stdin", " on stdin"
	}
	if strings.TrimSpace(text) == "" {
		return nil, Usagef("no arguments%s: give a JSON object, {} for none", where)
	}
	err := json.Unmarshal([]byte(text), new(json.RawMessage))
	if err == nil {
		return json.RawMessage(text), nil
	}
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return nil, Usagef("%s are not valid JSON: %v", what, err)
	}
	// The one syntax error that points past the text.
	atEnd := strings.HasPrefix(se.Error(), "unexpected end")
	return nil, Usagef("%s are not valid JSON: %v, %s", what, err, syntaxPlace(text, int(se.Offset), atEnd))
}

// syntaxPlace says where in text the byte at offset, counted from 1, is: at
// a character of a line (the line only when text has several), with the
// line up to it; or, atEnd, that the text ended too soon, with its end.
func syntaxPlace(text string, offset int, atEnd bool) string {
	end := min(max(offset, 1), len(text))
	if end == 0 {
		return "at the end"
	}
	start := strings.LastIndexByte(text[:end-1], '\n') + 1
	before := text[start:end]
	if n := utf8.RuneCountInString(before); n > maxArgsContext {
		cut := len(before)
		for range maxArgsContext {
			_, size := utf8.DecodeLastRuneInString(before[:cut])
			cut -= size
		}
		before = "…" + before[cut:]
	}
	if atEnd {
		return "at the end: " + strings.TrimRight(before, " \t\r\n")
	}
	at := fmt.Sprintf("at character %d", utf8.RuneCountInString(text[start:end]))
	if strings.Contains(text, "\n") {
		at = fmt.Sprintf("at line %d, %s", strings.Count(text[:start], "\n")+1, at[len("at "):])
	}
	return at + ": " + before
}
