package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpbridge/mcpbridge/internal/untrusted"
)

// What a server sent reaches the terminal without the escapes in it. Every
// string from a server, and every error (which may quote one), is printed
// through untrusted.Line or untrusted.Text, wherever the output goes: a
// person reads it, on a terminal now or later through a pager. Two kinds of
// output a program may want whole are not cleaned that way: a tool's result
// and a resource's text are kept as sent when they do not go to a terminal
// (content), and JSON escapes every invisible character instead of removing
// it (WriteJSON), so it decodes to exactly what the server sent.

// Content returns s, a tool's result or a resource's text, as it is for a
// pipe or a file, and as untrusted.Text on a terminal.
func Content(w io.Writer, s string) string {
	if IsTerminal(w) {
		return untrusted.Text(s)
	}
	return s
}

// A cleanWriter writes untrusted.Text of what it is given, a write at a
// time: a sequence split over two writes is removed, never passed. It is
// safe for concurrent use if w is.
type cleanWriter struct{ w io.Writer }

func (c cleanWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(c.w, untrusted.Text(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// WriteJSON writes v as indented JSON in which every character
// untrusted.Invisible names (inside strings: JSON escapes a newline) is
// written as a \u escape, and a byte that is not UTF-8 as \ufffd.
func WriteJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	data := buf.Bytes()
	out := make([]byte, 0, len(data))
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		switch {
		case r == utf8.RuneError && size == 1:
			out = append(out, `\ufffd`...)
		case r != '\n' && untrusted.Invisible(r):
			for _, u := range utf16.Encode([]rune{r}) {
				out = fmt.Appendf(out, `\u%04x`, u)
			}
		default:
			out = append(out, data[:size]...)
		}
		data = data[size:]
	}
	_, err := w.Write(out)
	return err
}

// ANSI colours, for [Paint].
const (
	Red   = "31"
	Green = "32"
	Cyan  = "36"
	Dim   = "2"
)

// UseColor reports whether to colour output to w: a terminal, and NO_COLOR
// unset (https://no-color.org).
func UseColor(w io.Writer) bool {
	if _, set := os.LookupEnv("NO_COLOR"); set {
		return false
	}
	return IsTerminal(w)
}

// Paint returns s in color when on, else s as it is.
func Paint(on bool, color, s string) string {
	if !on {
		return s
	}
	return "\x1b[" + color + "m" + s + "\x1b[0m"
}
