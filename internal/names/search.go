package names

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/tool"
)

// The fields of a definition that a search reads, each weighed on its own.
const (
	fieldName        = iota // the tool's name
	fieldTitle              // its title, and the annotations' title
	fieldDescription        // its description
	fieldParamName          // the names of its arguments
	fieldParamText          // their descriptions
	fieldServer             // the name of the server that serves it
	numFields
)

// The ranking's constants: BM25F (Robertson and Zaragoza, "The
// Probabilistic Relevance Framework: BM25 and Beyond", 2009) with a weight
// and a length normalisation per field. A word of the name counts most: a
// tool's name is what its author chose to say what it does. They were
// chosen on the public retrieval sets of internal/bench/searchbench.
var (
	fieldWeight = [numFields]float64{fieldName: 3, fieldTitle: 2, fieldDescription: 1, fieldParamName: 1, fieldParamText: 0.5, fieldServer: 1}
	fieldB      = [numFields]float64{fieldName: 0.5, fieldTitle: 0.5, fieldDescription: 0.75, fieldParamName: 0.5, fieldParamText: 0.75, fieldServer: 0}
)

const k1 = 1.2

// maxParams bounds the arguments of one tool whose names and descriptions
// are read.
const maxParams = 64

// An Index ranks a catalog's tools by how well they match a query: the
// search behind progressive disclosure's find_tools, in package agent and
// in package gateway, and code mode's look-up. It is built once for a
// catalog ([NewIndex]) and then answers any number of queries, concurrently.
//
// Names, titles, descriptions, the names and descriptions of the
// arguments and the server's name are split into words as identifiers and
// sentences are written (snake_case, camelCase, kebab-case, dots,
// punctuation, case aside); stop words are dropped and the rest stemmed
// (Snowball English), so that "list the files" finds list_files and
// "filing" finds "file". Tools are ranked by BM25F, each field with its
// own weight, a word of the name counting most; ties go by name, so that
// the ranking does not depend on the order of the catalog.
type Index struct {
	defs     []tool.Definition
	terms    map[string]int32 // a term → its postings
	words    map[string]int32 // a word of the catalog as written → its term, -1 for a stop word
	postings [][]posting
	scores   sync.Pool
}

// A posting is one tool a term is in, with the term's weight there.
type posting struct {
	doc    int32
	weight float32
}

// NewIndex indexes defs, which it keeps: the caller must not change them.
func NewIndex(defs []tool.Definition) *Index {
	x := &Index{defs: defs, terms: map[string]int32{}, words: map[string]int32{}}
	type entry struct {
		term int32
		tf   [numFields]uint16
	}
	var (
		entries []entry
		first   = make([]int, len(defs)+1) // defs[i]'s entries start at first[i]
		lengths = make([][numFields]uint32, len(defs))
		at      []int // a term's entry in the current tool's, if at least first[i]
	)
	for i := range defs {
		base := len(entries)
		first[i] = base
		fieldText(&defs[i], func(f int, text string) {
			words(text, func(w string) {
				id, ok := x.words[w]
				if !ok {
					id = x.term(w)
					if len(x.words) < maxVocabulary {
						x.words[w] = id
					}
					for int(id) >= len(at) {
						at = append(at, -1)
					}
				}
				if id < 0 {
					return
				}
				if at[id] < base {
					at[id] = len(entries)
					entries = append(entries, entry{term: id})
				}
				if e := &entries[at[id]]; e.tf[f] < math.MaxUint16 {
					e.tf[f]++
				}
				lengths[i][f]++
			})
		})
	}
	first[len(defs)] = len(entries)
	var avg [numFields]float64
	for _, l := range lengths {
		for f := range numFields {
			avg[f] += float64(l[f])
		}
	}
	for f := range numFields {
		avg[f] /= float64(max(len(defs), 1))
	}
	df := make([]int32, len(x.terms))
	for _, e := range entries {
		df[e.term]++
	}
	x.postings = make([][]posting, len(x.terms))
	flat := make([]posting, len(entries)) // one allocation for every list
	for id, n := range df {
		x.postings[id], flat = flat[:0:n], flat[n:]
	}
	n := float64(len(defs))
	idf := make([]float64, len(df))
	for id, d := range df {
		idf[id] = math.Log(1 + (n-float64(d)+0.5)/(float64(d)+0.5))
	}
	for i := range defs {
		for _, e := range entries[first[i]:first[i+1]] {
			tf := 0.0
			for f := range numFields {
				if e.tf[f] == 0 {
					continue
				}
				norm := 1 - fieldB[f] + fieldB[f]*float64(lengths[i][f])/avg[f]
				tf += fieldWeight[f] * float64(e.tf[f]) / norm
			}
			x.postings[e.term] = append(x.postings[e.term], posting{int32(i), float32(idf[e.term] * tf / (k1 + tf))})
		}
	}
	return x
}

// fieldText calls add with each text of d and the field it is of. The
// input schema is read as written (package rawjson), without decoding it:
// a catalog's schemas are most of its bytes.
func fieldText(d *tool.Definition, add func(field int, text string)) {
	add(fieldName, d.Name)
	add(fieldTitle, d.Title)
	if d.Annotations != nil {
		add(fieldTitle, d.Annotations.Title)
	}
	add(fieldDescription, d.Description)
	add(fieldServer, d.Origin.Server)
	var props []byte
	rawjson.Members(d.InputSchema, func(key, value []byte) bool {
		if string(key) == "properties" {
			props = value
			return false
		}
		return true
	})
	n := 0
	rawjson.Members(props, func(name, schema []byte) bool {
		if n == maxParams {
			return false
		}
		n++
		add(fieldParamName, string(name))
		rawjson.Members(schema, func(key, value []byte) bool {
			if k := string(key); k == "description" || k == "title" {
				if text, ok := rawjson.String(value); ok {
					add(fieldParamText, text)
				}
			}
			return true
		})
		return true
	})
}

// Len returns the number of tools indexed. A nil *Index has none.
func (x *Index) Len() int {
	if x == nil {
		return 0
	}
	return len(x.defs)
}

// Same reports whether defs are, in every field the index reads, the
// definitions it was built from, so that a caller holding an index need not
// build another for the same catalog.
func (x *Index) Same(defs []tool.Definition) bool {
	if x == nil || len(defs) != len(x.defs) {
		return false
	}
	for i := range defs {
		a, b := &defs[i], &x.defs[i]
		if a.Name != b.Name || a.Title != b.Title || a.Description != b.Description ||
			a.Origin.Server != b.Origin.Server || (a.Annotations == nil) != (b.Annotations == nil) ||
			a.Annotations != nil && a.Annotations.Title != b.Annotations.Title ||
			!bytes.Equal(a.InputSchema, b.InputSchema) {
			return false
		}
	}
	return true
}

// Search returns the tools that match query, best first, at most limit of
// them (all if limit is not positive), and how many matched in all. A tool
// matches when its fields hold a term of the query; keep, if not nil,
// leaves out the tools it returns false for (those a client may not see),
// which then neither count nor take a place. A nil *Index finds nothing.
func (x *Index) Search(query string, limit int, keep func(tool.Definition) bool) ([]tool.Definition, int) {
	if x == nil {
		return nil, 0
	}
	scores, _ := x.scores.Get().(*[]float32)
	if scores == nil {
		s := make([]float32, len(x.defs))
		scores = &s
	}
	defer x.scores.Put(scores)
	score := *scores
	var touched []int32
	seen := map[int32]bool{}
	words(query, func(w string) {
		id := x.queryTerm(w)
		if id < 0 || seen[id] {
			return
		}
		seen[id] = true
		for _, p := range x.postings[id] {
			if score[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			score[p.doc] += p.weight
		}
	})
	better := func(a, b int32) bool {
		if score[a] != score[b] {
			return score[a] > score[b]
		}
		if x.defs[a].Name != x.defs[b].Name {
			return x.defs[a].Name < x.defs[b].Name
		}
		return a < b
	}
	var top []int32 // the best so far, best first
	matched := 0
	for _, doc := range touched {
		if keep != nil && !keep(x.defs[doc]) {
			continue
		}
		matched++
		if limit <= 0 {
			top = append(top, doc)
			continue
		}
		if len(top) == limit && !better(doc, top[len(top)-1]) {
			continue
		}
		if len(top) == limit {
			top = top[:limit-1]
		}
		i := len(top)
		for i > 0 && better(doc, top[i-1]) {
			i--
		}
		top = slices.Insert(top, i, doc)
	}
	if limit <= 0 {
		slices.SortFunc(top, func(a, b int32) int {
			switch {
			case a == b:
				return 0
			case better(a, b):
				return -1
			}
			return 1
		})
	}
	for _, doc := range touched {
		score[doc] = 0
	}
	out := make([]tool.Definition, len(top))
	for i, doc := range top {
		out[i] = x.defs[doc]
	}
	return out, matched
}

// term returns the term of a word of the catalog, adding it if new, or
// -1 for a stop word.
func (x *Index) term(w string) int32 {
	if lower := strings.ToLower(w); lower != w {
		if id, ok := x.words[lower]; ok {
			return id
		}
	}
	t := stem(w)
	if t == "" {
		return -1
	}
	id, ok := x.terms[t]
	if !ok {
		id = int32(len(x.terms))
		x.terms[t] = id
	}
	return id
}

// queryTerm returns the term of a query's word, or -1 if no tool has it.
// The index is not written once built, so that queries may run
// concurrently.
func (x *Index) queryTerm(w string) int32 {
	if id, ok := x.words[w]; ok {
		return id
	}
	if id, ok := x.terms[stem(w)]; ok {
		return id
	}
	return -1
}

// maxVocabulary bounds the words an index remembers; past it, a word is
// stemmed each time it comes.
const maxVocabulary = 1 << 20
