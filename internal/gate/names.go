package gate

import (
	"cmp"
	"slices"

	"github.com/mcpbridge/mcpbridge/internal/names"
	"github.com/mcpbridge/mcpbridge/tool"
)

// Names is what a host knows about the tool behind a called name: the names it
// goes by besides the one it was called by, and its annotations.
type Names struct {
	// Tool is the tool's own name, as its server (or local definition)
	// declares it.
	Tool string
	// Server is the name of the MCP server that serves the tool, or "" for a
	// local tool. With Tool it makes the alias mcp__<Server>__<Tool>, which
	// the policy judges too.
	Server string
	// Namespaced is the name the host offers the model when it is not Tool:
	// prefixed with the server's (kb_search for tool search of server kb),
	// or rewritten to a vendor's rules; "" when the tool is offered as Tool.
	// An allow pattern matches it (or Tool when it is "") and the alias,
	// never Tool alone when it is set.
	Namespaced string
	// Annotations are the tool's behaviour hints, or nil when it declared
	// none. Only the approval hook reads them; patterns never do.
	Annotations *tool.Annotations
}

// A Resolver tells the policy what a called name stands for: ok is false for a
// name the host does not know. The policy asks it before judging every call,
// so that a tool refused under one name cannot be reached through another;
// it must be safe for concurrent use.
//
// A resolver that knows a tool by its alias mcp__<server>__<tool> as well as
// by its other names lets the policy judge alias calls by the server the host
// checked rather than the one the caller wrote.
type Resolver func(calledName string) (names Names, ok bool)

// For returns a policy with p's rules whose resolver also knows the tools of
// defs by every name they go by: the name a model is offered, and for a
// tool of an MCP server ([tool.Definition.Origin]) the server's own name for
// it and its alias, with its annotations. A name defs do not know is asked of
// p's own [Resolver], if any.
//
// A host gates the definitions it offers with it, so that a rule holds
// under every name with no resolver of its own: package agent does this for
// the definitions it is given.
func (p *Policy) For(defs []tool.Definition) *Policy {
	known := make(map[string]Names, 2*len(defs))
	for _, d := range defs {
		n := Names{Tool: d.Name, Annotations: d.Annotations}
		if d.Origin != (tool.Origin{}) {
			n.Tool, n.Server = d.Origin.Tool, d.Origin.Server
			if d.Name != d.Origin.Tool {
				n.Namespaced = d.Name
			}
			known[d.Origin.Alias()] = n
		}
		known[d.Name] = n
	}
	q := *p
	q.resolve = func(name string) (Names, bool) {
		if n, ok := known[name]; ok {
			return n, true
		}
		if p.resolve != nil {
			return p.resolve(name)
		}
		return Names{}, false
	}
	return &q
}

// called is every name one called name stands for, in the two sets the
// rule judges.
type called struct {
	// names are every name the call goes by, for judging denials: the
	// called name, what the resolver said, the tool parts an alias can be
	// read to have, and what each vendor's rules make of each.
	names []string
	// served are the names the host serves the tool by, for judging an
	// allow: its final name (namespaced, when the host namespaces) and its
	// alias, when the resolver knows it; else the called name, which the
	// host serves or refuses as it is (an alias runs on the server it
	// names alone), unless it is an alias that can be read as naming
	// several servers (a name holding "__").
	served []string
}

// expand finds every name a called name goes by. names is what the resolver
// knows, with Tool filled in from the alias or the called name when it knows
// nothing.
func (p *Policy) expand(name string) (c called, names Names) {
	known := false
	if p.resolve != nil {
		names, known = p.resolve(name)
	}
	readings := aliasReadings(name)
	c.names = append(c.names, name)
	if known {
		c.names = appendNonEmpty(c.names, names.Tool, names.Namespaced)
		c.served = appendNonEmpty(c.served, cmp.Or(names.Namespaced, names.Tool))
		if names.Server != "" && names.Tool != "" {
			alias := tool.Origin{Server: names.Server, Tool: names.Tool}.Alias()
			c.names = append(c.names, alias)
			c.served = append(c.served, alias)
		}
	} else {
		names = Names{}
		if len(readings) < 2 {
			c.served = append(c.served, name)
		}
	}
	c.names = append(c.names, readings...)
	if len(p.deny) > 0 {
		c.names = p.rewritten(c.names)
	}
	if names.Tool == "" {
		names.Tool = name
		if len(readings) > 0 {
			names.Tool = readings[0]
		}
	}
	return c, names
}

// rewritten returns names with what each vendor's naming rules make of
// each (toolschema.Namer.Rewrite) added, each name once: a host offers a
// tool whose own name a vendor does not allow (delete.dir) under the
// rewrite (fs_delete_dir), so a deny of delete_* must see delete_dir.
func (p *Policy) rewritten(names []string) []string {
	out := names
	for _, n := range names {
		for _, r := range p.namers {
			if w := r.Rewrite(n); !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// aliasReadings returns every tool part an alias mcp__<server>__<tool> can be
// read to have (names.Readings), or nil when name is no alias. A
// handler runs at most one of them, and the policy cannot tell which.
func aliasReadings(name string) []string {
	var readings []string
	for _, o := range names.Readings(name) {
		readings = append(readings, o.Tool)
	}
	return readings
}

func appendNonEmpty(names []string, more ...string) []string {
	for _, n := range more {
		if n != "" {
			names = append(names, n)
		}
	}
	return names
}
