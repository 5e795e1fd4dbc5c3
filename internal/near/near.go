package near

import (
	"strings"
	"unicode/utf8"
)

// Suggest returns the one name in names that a caller most likely meant by
// name, which none of them is, or "" when no name is close or two are
// equally close. Models call tools by names they half remember: with "-"
// for "_", in another case, without the server's prefix (add_note for
// notes_add_note) or with one, or misspelt by a letter or two. Names longer than 128 characters are
// never compared.
func Suggest(name string, names []string) string {
	norm := func(s string) string {
		return strings.Map(func(r rune) rune {
			switch r {
			case '-', '.', ' ', '/':
				return '_'
			}
			return r
		}, strings.ToLower(s))
	}
	want := norm(name)
	if want == "" || utf8.RuneCountInString(want) > maxSuggestRunes {
		return ""
	}
	best, bestScore, tie := "", len(want)/4+2, false // a score must be below the bound
	for _, n := range names {
		have := norm(n)
		if utf8.RuneCountInString(have) > maxSuggestRunes {
			continue
		}
		var score int
		switch {
		case have == want:
			score = 0
		case strings.HasSuffix(have, "_"+want), strings.HasSuffix(want, "_"+have):
			score = 1 // a server prefix too many or too few
		default:
			score = EditDistance(want, have) + 1
		}
		switch {
		case score < bestScore:
			best, bestScore, tie = n, score, false
		case score == bestScore && n != best:
			tie = true
		}
	}
	if tie {
		return ""
	}
	return best
}

// maxSuggestRunes bounds the names Suggest compares: the name comes from a
// model, and the distance takes time quadratic in the lengths. No tool name
// is that long; MCP allows 128 characters.
const maxSuggestRunes = 128

// EditDistance is the optimal string alignment distance between a and b, in
// runes: insertions, deletions, substitutions and transpositions of
// neighbours each cost one, so "tpye" is one edit from "type". It takes time
// proportional to the product of the lengths; bound them when they come from
// outside.
func EditDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	// Three rows of the matrix: the two before the current one, for the
	// transposition.
	prev2 := make([]int, len(y)+1)
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(y)]
}
