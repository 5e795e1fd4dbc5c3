// Package codeapi is the tools of a [tool.Set] as a script of code mode
// (package codemode) reaches them: each tool's identifier, its path
// tools.<group>.<tool>, the TypeScript declarations a model reads, and the
// look-up that answers them. It holds no interpreter, so that what only
// declares the tools (mcpbridge tools --code) is built without one.
package codeapi

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/names"
	"github.com/mcpbridge/mcpbridge/internal/toolschema"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/schema"
	"github.com/mcpbridge/mcpbridge/tool"
)

// localGroup is the group of the tools no server serves (tool.Func).
const localGroup = "local"

// An API is the tools of a Set as a script reaches them:
// tools.<group>.<ident>, a group for each server in the order the Set first
// names it.
type API struct {
	entries []entry
	groups  []*group
	byName  map[string]int // the Set's name of each tool
	index   *names.Index   // the tools by their paths, for Describe
}

type entry struct {
	def   tool.Definition
	group *group
	ident string
}

// path is the tool as a script calls it, without "tools.".
func (e *entry) path() string { return e.group.ident + "." + e.ident }

type group struct {
	ident   string
	server  string // the server's name, "" for local tools
	entries []int
	namer   *toolschema.Namer
}

// New names every tool of defs. A name is made an identifier as a
// vendor name is made valid (schema.Namer: accents dropped, any other
// character '_', a name that is too long or already taken given a hash of
// the tool), with '-' as '_' and a leading digit after '_': so each tool
// has one identifier, a tool keeps it whatever else is offered unless two
// compete for it, and the table maps it back to the tool.
func New(defs []tool.Definition) (*API, error) {
	a := &API{byName: map[string]int{}}
	groups := toolschema.NewNamer(toolschema.OpenAI)
	byServer := map[string]*group{}
	for _, d := range defs {
		if _, dup := a.byName[d.Name]; dup || d.Name == "" {
			continue
		}
		server, own := d.Origin.Server, d.Origin.Tool
		if d.Origin == (tool.Origin{}) || own == "" {
			own = d.Name
		}
		g := byServer[server]
		if g == nil {
			want := server
			if server == "" {
				want = localGroup
			}
			id, err := identifier(groups, "", server, want)
			if err != nil {
				return nil, err
			}
			g = &group{ident: id, server: server, namer: toolschema.NewNamer(toolschema.OpenAI)}
			byServer[server] = g
			a.groups = append(a.groups, g)
		}
		// Keyed by the Set's name, which is the tool's own: two tools
		// claiming one origin still get a path each.
		id, err := identifier(g.namer, server, d.Name, own)
		if err != nil {
			return nil, err
		}
		a.byName[d.Name] = len(a.entries)
		g.entries = append(g.entries, len(a.entries))
		a.entries = append(a.entries, entry{def: d, group: g, ident: id})
	}
	byPath := make([]tool.Definition, len(a.entries))
	for i, e := range a.entries {
		byPath[i] = e.def
		byPath[i].Name = e.path() // a word may name the server
	}
	a.index = names.NewIndex(byPath)
	return a, nil
}

// identifier gives the pair (a, b) a JavaScript identifier of n's, from
// want.
func identifier(n *toolschema.Namer, a, b, want string) (string, error) {
	w := strings.ReplaceAll(n.Rewrite(want), "-", "_")
	if w == "" || '0' <= w[0] && w[0] <= '9' {
		w = "_" + w
	}
	id, err := n.Add(a, b, w)
	if err != nil {
		return "", fmt.Errorf("codemode: naming tool %q of server %q: %w", b, a, err)
	}
	return id, nil
}

// Find returns the entry a script names: a path (demo.add_note, with or
// without "tools."), the Set's name of a tool, or its alias.
func (a *API) Find(name string) (int, bool) {
	if i, ok := a.byName[name]; ok {
		return i, true
	}
	path := strings.TrimPrefix(name, "tools.")
	for i := range a.entries {
		if a.entries[i].path() == path {
			return i, true
		}
	}
	o, ok, _ := names.Resolve(name, func(o tool.Origin) bool {
		return slices.ContainsFunc(a.entries, func(e entry) bool { return e.def.Origin == o })
	})
	if ok {
		for i, e := range a.entries {
			if e.def.Origin == o {
				return i, true
			}
		}
	}
	return 0, false
}

// Declare renders the declarations of the entries picked, grouped as the
// script reaches them, in the API's order.
func (a *API) Declare(picked []int) string {
	var b strings.Builder
	b.WriteString("declare const tools: {\n")
	for _, g := range a.groups {
		var in []int
		for _, i := range g.entries {
			if slices.Contains(picked, i) {
				in = append(in, i)
			}
		}
		if len(in) == 0 {
			continue
		}
		fmt.Fprintf(&b, "  %s: {\n", g.ident)
		for _, i := range in {
			e := &a.entries[i]
			b.WriteString(schema.Declaration(e.ident, e.def.Description, e.def.InputSchema, e.def.OutputSchema, "    "))
		}
		b.WriteString("  };\n")
	}
	b.WriteString("};\n")
	return b.String()
}

// All returns the index of every entry.
func (a *API) All() []int {
	out := make([]int, len(a.entries))
	for i := range out {
		out[i] = i
	}
	return out
}

// Servers lists the groups for the code tool's description.
func (a *API) Servers() string {
	var names []string
	for _, g := range a.groups {
		names = append(names, g.ident)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// maxDescribed bounds the tools one look-up declares.
const maxDescribed = 12

// Describe answers the look-up: the declarations of the tools a query
// names or matches. A word that names a group or a tool's path picks it
// (a whole group, up to the bound); the others rank the rest
// ([names.Index]).
func (a *API) Describe(query string) string {
	var picked []int
	var words []string
	for _, w := range strings.Fields(strings.ReplaceAll(query, ",", " ")) {
		w = strings.TrimPrefix(w, "tools.")
		if i, ok := a.Find(w); ok {
			picked = appendNew(picked, i)
			continue
		}
		matched := false
		for _, g := range a.groups {
			if g.ident == w {
				matched = true
				for _, i := range g.entries {
					picked = appendNew(picked, i)
				}
			}
		}
		if !matched {
			words = append(words, w)
		}
	}
	if len(words) > 0 {
		hits, _ := a.index.Search(strings.Join(words, " "), 0, nil)
		for _, d := range hits {
			picked = appendNew(picked, a.indexOfPath(d.Name))
		}
	}
	if len(picked) == 0 {
		return fmt.Sprintf("No tool matches %q. Servers: %s. Try other words, a server's name, or server.tool.", untrusted.Line(query), a.Servers())
	}
	more := 0
	if len(picked) > maxDescribed {
		more = len(picked) - maxDescribed
		picked = picked[:maxDescribed]
	}
	out := a.Declare(picked)
	if more > 0 {
		out += fmt.Sprintf("// %d more tools match; narrow the query.\n", more)
	}
	return out
}

func (a *API) indexOfPath(path string) int {
	for i := range a.entries {
		if a.entries[i].path() == path {
			return i
		}
	}
	return -1
}

func appendNew(s []int, i int) []int {
	if i < 0 || slices.Contains(s, i) {
		return s
	}
	return append(s, i)
}

// Manifest is the API as the prelude builds it: each group's identifier
// and its tools, [identifier, index, the Set's name].
func (a *API) Manifest() []any {
	out := make([]any, 0, len(a.groups))
	for _, g := range a.groups {
		fns := make([]any, 0, len(g.entries))
		for _, i := range g.entries {
			fns = append(fns, []any{a.entries[i].ident, i, a.entries[i].def.Name})
		}
		out = append(out, []any{g.ident, fns})
	}
	return out
}

// IsPath reports whether name is written as a path of the API (with or
// without "tools.": a group, a dot, a name) that names no tool of it.
func (a *API) IsPath(name string) bool {
	if _, ok := a.Find(name); ok {
		return false
	}
	if rest, ok := strings.CutPrefix(name, "tools."); ok {
		return rest != ""
	}
	head, _, ok := strings.Cut(name, ".")
	return ok && slices.ContainsFunc(a.groups, func(g *group) bool { return g.ident == head })
}

// Len is how many tools the API has.
func (a *API) Len() int { return len(a.entries) }

// Name returns the Set's name of the tool i, which its handler knows.
func (a *API) Name(i int) string { return a.entries[i].def.Name }

// Path returns the path of the tool i, without "tools.".
func (a *API) Path(i int) string { return a.entries[i].path() }
