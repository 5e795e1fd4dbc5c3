package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/names"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/tool"
)

// The tools a model gets instead of a catalog too large to send whole.
const (
	findToolsName = "find_tools"
	loadToolsName = "load_tools"
	// maxFound bounds one search's answer, maxFoundLine each tool's line.
	maxFound     = 12
	maxFoundLine = 256
)

// The arguments of find_tools and load_tools, from which tool.Func derives
// their schemas and checks each call.
type (
	findArgs struct {
		Query string `json:"query" jsonschema:"words describing the task, e.g. \"search notes\" or \"create calendar event\""`
	}
	loadArgs struct {
		Names []string `json:"names" jsonschema:"the tool names to load"`
	}
)

const (
	findDescription = "Search the tools available to you by what they do. Returns the names and one-line descriptions of the best matches; load the ones you need with load_tools before calling them."
	loadDescription = "Load tools by name (from find_tools) so that you can call them from your next step on."
)

// catalog is the whole set of tools under progressive disclosure.
type catalog struct {
	defs   []tool.Definition
	byName map[string]tool.Definition
	search []tool.Definition // find_tools and load_tools, set by tools
}

func newCatalog(defs []tool.Definition) *catalog {
	c := &catalog{defs: defs, byName: make(map[string]tool.Definition, len(defs))}
	for _, d := range defs {
		c.byName[d.Name] = d
	}
	return c
}

// tools returns find_tools and load_tools over c, loading into into, as
// the Set that serves them.
func (c *catalog) tools(into *loadedSet) (tool.Set, error) {
	find, err := tool.Func(findToolsName, findDescription, func(ctx context.Context, in findArgs) (string, error) {
		text, n := c.find(in.Query)
		found(ctx, n)
		return text, nil
	})
	if err != nil {
		return tool.Set{}, err
	}
	load, err := tool.Func(loadToolsName, loadDescription, func(ctx context.Context, in loadArgs) (string, error) {
		return c.load(ctx, in.Names, into), nil
	})
	if err != nil {
		return tool.Set{}, err
	}
	set := tool.Join(find, load)
	c.search = set.Definitions
	return set, nil
}

// offered is the search and load tools, then the loaded ones in load order.
func (c *catalog) offered(loaded *loadedSet) []tool.Definition {
	defs := slices.Clone(c.search)
	for _, name := range loaded.snapshot() {
		defs = append(defs, c.byName[name])
	}
	return defs
}

// load loads the named tools that exist and says which it loaded and which
// do not exist.
func (c *catalog) load(ctx context.Context, names []string, into *loadedSet) string {
	var ok, unknown []string
	for _, n := range names {
		if _, known := c.byName[n]; known {
			ok = append(ok, n)
		} else {
			unknown = append(unknown, n)
		}
	}
	into.add(ok...)
	loaded(ctx, ok)
	var b strings.Builder
	if len(ok) > 0 {
		fmt.Fprintf(&b, "Loaded %s; you can call them from your next step.", strings.Join(ok, ", "))
	}
	if len(unknown) > 0 {
		fmt.Fprintf(&b, " No tool is named %s; use find_tools.", strings.Join(unknown, ", "))
	}
	return strings.TrimSpace(b.String())
}

// find ranks the tools (names.Search) and says how many matched.
func (c *catalog) find(query string) (string, int) {
	hits := names.Search(c.defs, query)
	if len(hits) == 0 {
		return fmt.Sprintf("No tool matches %q. Try other words.", query), 0
	}
	var b strings.Builder
	for i, d := range hits {
		if i == maxFound {
			fmt.Fprintf(&b, "(%d more; narrow the query)\n", len(hits)-maxFound)
			break
		}
		line, _, _ := strings.Cut(strings.TrimSpace(untrusted.Text(d.Description)), "\n")
		fmt.Fprintf(&b, "%s: %s\n", untrusted.Cut(untrusted.Line(d.Name), maxFoundLine), untrusted.Cut(untrusted.Line(line), maxFoundLine))
	}
	return strings.TrimSpace(b.String()), len(hits)
}
