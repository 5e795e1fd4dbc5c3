package policy

import (
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
	// Namespaced is the name the host offers the model when it prefixes tool
	// names with their server's (kb_search for tool search of server kb), or
	// "" when it does not.
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
		if !d.Origin.IsZero() {
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

// called is every name one called name stands for, sorted by how far each
// can be trusted to decide an allow.
type called struct {
	// vouched are the names that pick out the very tool that will run: the
	// called name itself (unless it is an alias) and what the resolver said.
	vouched []string
	// readings are the possible tool parts of an alias, longest first: more
	// than one when a server or tool name holds "__". The handler runs one of
	// them, and the policy cannot tell which.
	readings []string
	// alias is the called name when it is an alias: its server part is the
	// caller's word, so it is judged only for denial.
	alias string
}

// all returns every name, for judging denials.
func (c called) all() []string {
	names := append([]string(nil), c.vouched...)
	if c.alias != "" {
		names = append(names, c.alias)
	}
	return append(names, c.readings...)
}

// expand finds every name a called name goes by. names is what the resolver
// knows, with Tool filled in from the alias or the called name when it knows
// nothing.
func (p *Policy) expand(name string) (c called, names Names) {
	known := false
	if p.resolve != nil {
		names, known = p.resolve(name)
	}
	c.readings = aliasReadings(name)
	if len(c.readings) > 0 {
		c.alias = name
	} else {
		c.vouched = append(c.vouched, name)
	}
	if known {
		c.vouched = appendNonEmpty(c.vouched, names.Tool, names.Namespaced)
		if names.Server != "" && names.Tool != "" {
			c.vouched = append(c.vouched, tool.Origin{Server: names.Server, Tool: names.Tool}.Alias())
		}
	} else {
		names = Names{}
	}
	if names.Tool == "" {
		names.Tool = name
		if len(c.readings) > 0 {
			names.Tool = c.readings[0]
		}
	}
	return c, names
}

// aliasReadings returns every tool part an alias mcp__<server>__<tool> can be
// read to have ([tool.AliasReadings]), or nil when name is no alias. A
// handler runs at most one of them, and the policy cannot tell which.
func aliasReadings(name string) []string {
	var readings []string
	for _, o := range tool.AliasReadings(name) {
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
