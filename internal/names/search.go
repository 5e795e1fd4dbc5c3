package names

import (
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/tool"
)

// Search ranks defs by how many of the query's words (case aside) their
// name and description contain, a word in the name counting double, and
// returns those that contain any, best first, ties in their order in defs.
// It is the search behind progressive disclosure's find_tools, in package
// agent and in package gateway.
func Search(defs []tool.Definition, query string) []tool.Definition {
	words := strings.Fields(strings.ToLower(query))
	type hit struct {
		def   tool.Definition
		score int
	}
	var hits []hit
	for _, d := range defs {
		name, desc := strings.ToLower(d.Name), strings.ToLower(d.Description)
		score := 0
		for _, w := range words {
			if strings.Contains(name, w) {
				score += 2
			}
			if strings.Contains(desc, w) {
				score++
			}
		}
		if score > 0 {
			hits = append(hits, hit{d, score})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return b.score - a.score })
	out := make([]tool.Definition, len(hits))
	for i, h := range hits {
		out[i] = h.def
	}
	return out
}
