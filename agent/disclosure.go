package agent

import (
	"context"
	"encoding/json"
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
	findDescription         = "Search the tools available to you by what they do. Returns the names and one-line descriptions of the best matches; load the ones you need with load_tools before calling them."
	findDeferredDescription = "Search the tools available to you by what they do. Returns the names and one-line descriptions of the best matches, which are then loaded: call the ones you need from your next step on."
	loadDescription         = "Load tools by name (from find_tools) so that you can call them from your next step on."
)

// catalog is the whole set of tools under progressive disclosure.
type catalog struct {
	index  *names.Index
	defs   []tool.Definition
	byName map[string]tool.Definition
	search []tool.Definition // find_tools and load_tools, set by tools
	// deferred says the model's vendor loads what find_tools finds
	// (llm.ToolDeferrer): the catalog goes as deferred tools, find_tools'
	// answer references its hits, and there is no load_tools.
	deferred bool
}

// newCatalog makes the catalog of index's tools, defs.
func newCatalog(index *names.Index, defs []tool.Definition, deferred bool) *catalog {
	c := &catalog{index: index, defs: defs, byName: make(map[string]tool.Definition, len(defs)), deferred: deferred}
	for _, d := range defs {
		c.byName[d.Name] = d
	}
	return c
}

// A foundReply is find_tools' structured result when the vendor loads what
// it finds: the names of the tools its text lists, which the agent sends
// as the result's references (llm.Message.References).
type foundReply struct {
	Tools []string `json:"tools"`
}

// tools returns find_tools and load_tools over c, loading into into, as
// the Set that serves them; when the vendor loads what find_tools finds,
// find_tools alone.
func (c *catalog) tools(into *loadedSet) (tool.Set, error) {
	if c.deferred {
		find, err := tool.Func(findToolsName, findDeferredDescription, func(ctx context.Context, in findArgs) (tool.Reply, error) {
			text, n, hits := c.find(in.Query)
			found(ctx, n)
			into.add(hits...)
			loaded(ctx, hits)
			data, err := json.Marshal(foundReply{hits})
			return tool.Reply{Parts: []tool.Part{tool.TextPart{Text: text}}, Structured: data}, err
		})
		c.search = find.Definitions
		return find, err
	}
	find, err := tool.Func(findToolsName, findDescription, func(ctx context.Context, in findArgs) (string, error) {
		text, n, _ := c.find(in.Query)
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

// offered is the search and load tools, then the loaded ones in load order
// (when the vendor loads them, the search tool alone).
func (c *catalog) offered(loaded *loadedSet) []tool.Definition {
	defs := slices.Clone(c.search)
	if !c.deferred {
		defs = append(defs, c.loaded(loaded)...)
	}
	return defs
}

// loaded is the tools loaded, in load order.
func (c *catalog) loaded(loaded *loadedSet) []tool.Definition {
	var defs []tool.Definition
	for _, name := range loaded.snapshot() {
		defs = append(defs, c.byName[name])
	}
	return defs
}

// references returns the tools a call's result loads, when the vendor
// loads them: find_tools' hits.
func (c *catalog) references(call string, res tool.Reply) []string {
	if !c.deferred || call != findToolsName {
		return nil
	}
	var r foundReply
	if json.Unmarshal(res.Structured, &r) != nil {
		return nil
	}
	return r.Tools
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

// find ranks the tools ([names.Index]) and says how many matched, and
// which it lists.
func (c *catalog) find(query string) (string, int, []string) {
	hits, n := c.index.Search(query, maxFound, nil)
	if n == 0 {
		return fmt.Sprintf("No tool matches %q. Try other words.", query), 0, nil
	}
	listed := make([]string, len(hits))
	var b strings.Builder
	for i, d := range hits {
		listed[i] = d.Name
		line, _, _ := strings.Cut(strings.TrimSpace(untrusted.Text(d.Description)), "\n")
		fmt.Fprintf(&b, "%s: %s\n", untrusted.Cut(untrusted.Line(d.Name), maxFoundLine), untrusted.Cut(untrusted.Line(line), maxFoundLine))
	}
	if n > len(hits) {
		fmt.Fprintf(&b, "(%d more; narrow the query)\n", n-len(hits))
	}
	return strings.TrimSpace(b.String()), n, listed
}
