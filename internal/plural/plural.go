// Package plural writes a count with its noun in the right number, so that
// no message says "1 tools" or hedges with "tool(s)": the one rule for every
// count the command and the libraries print.
//
// Options: none. The caller gives a noun in both numbers, so no table of
// irregular plurals is kept here.
package plural

import "fmt"

// A number is a count as messages hold it: an int, or a JSON number (a
// schema's minLength arrives as a float64).
type number interface {
	~int | ~int64 | ~float64
}

// Count returns n followed by one when n is 1, else by many: "1 tool",
// "0 tools", "3 properties".
func Count[N number](n N, one, many string) string {
	return fmt.Sprintf("%v %s", n, Noun(n, one, many))
}

// Noun returns one when n is 1, else many, for a sentence that puts the
// count elsewhere.
func Noun[N number](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
