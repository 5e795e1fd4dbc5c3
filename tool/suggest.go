package tool

import "strings"

// Suggest returns the one name in names that a caller most likely meant by
// name, which none of them is, or "" when no name is close or two are
// equally close. Models call tools by names they half remember: with "-"
// for "_", in another case, without the server's prefix (add_note for
// notes_add_note) or with one, or misspelt by a letter or two.
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
	if want == "" {
		return ""
	}
	best, bestScore, tie := "", len(want)/4+2, false // a score must be below the bound
	for _, n := range names {
		have := norm(n)
		var score int
		switch {
		case have == want:
			score = 0
		case strings.HasSuffix(have, "_"+want), strings.HasSuffix(want, "_"+have):
			score = 1 // a server prefix too many or too few
		default:
			score = distance(want, have) + 1
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

// distance is the Levenshtein distance between a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
