package main

import (
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/mcpbridge/mcpbridge/tool"
)

// A ranker ranks a catalog for a query: the rank of want (1 for the
// first), or 0 if it does not match.
type ranker interface {
	rank(q string, want string) int
}

// bm25 is plain BM25 (k1 1.2, b 0.75) over each tool's name and
// description as one text, split into lower-case runs of letters and
// digits, nothing dropped or stemmed: the textbook baseline, as
// Anthropic's and others' tool search use it. Ties keep the catalog's
// order.
type bm25 struct {
	defs   []tool.Definition
	tf     []map[string]int
	length []float64
	avg    float64
	df     map[string]int
}

func newBM25(defs []tool.Definition) *bm25 {
	b := &bm25{defs: defs, df: map[string]int{}}
	for _, d := range defs {
		tf := map[string]int{}
		n := 0
		for _, w := range plainWords(d.Name + " " + d.Description) {
			tf[w]++
			n++
		}
		for w := range tf {
			b.df[w]++
		}
		b.tf = append(b.tf, tf)
		b.length = append(b.length, float64(n))
		b.avg += float64(n)
	}
	b.avg /= float64(max(len(defs), 1))
	return b
}

func plainWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func (b *bm25) rank(q, want string) int {
	const k1, bb = 1.2, 0.75
	words := plainWords(q)
	n := float64(len(b.defs))
	scores := make([]float64, len(b.defs))
	for i := range b.defs {
		for _, w := range words {
			tf := float64(b.tf[i][w])
			if tf == 0 {
				continue
			}
			df := float64(b.df[w])
			idf := math.Log(1 + (n-df+0.5)/(df+0.5))
			scores[i] += idf * tf * (k1 + 1) / (tf + k1*(1-bb+bb*b.length[i]/b.avg))
		}
	}
	return rankOf(b.defs, scores, want)
}

// rankOf returns want's rank by scores, ties in the catalog's order, or 0
// if its score is 0.
func rankOf(defs []tool.Definition, scores []float64, want string) int {
	at := slices.IndexFunc(defs, func(d tool.Definition) bool { return d.Name == want })
	if at < 0 || scores[at] == 0 {
		return 0
	}
	r := 1
	for i, s := range scores {
		if s > scores[at] || s == scores[at] && i < at {
			r++
		}
	}
	return r
}

// before is the search find_tools had before names.Index: a query's
// words split on spaces, each counting if it appears anywhere in the name
// (twice) or the description, ties in the catalog's order.
type before struct{ defs []tool.Definition }

func (o before) rank(q, want string) int {
	words := strings.Fields(strings.ToLower(q))
	scores := make([]float64, len(o.defs))
	for i, d := range o.defs {
		name, desc := strings.ToLower(d.Name), strings.ToLower(d.Description)
		for _, w := range words {
			if strings.Contains(name, w) {
				scores[i] += 2
			}
			if strings.Contains(desc, w) {
				scores[i]++
			}
		}
	}
	return rankOf(o.defs, scores, want)
}
