package tool

import "context"

// A Source offers tools: a local set, one MCP server (an mcptool.Provider),
// many servers (a toolset.Toolset). A host takes one [Set] from each source
// for each turn of a conversation, so the tools a model is shown and the
// handler that serves them always agree, and never change while the turn
// runs; a source's changes (a server's list_changed) show in its next Set.
//
// Offer must be safe for concurrent use. An error says the source cannot
// offer anything now; an empty Set is a source with no tools.
type Source interface {
	Offer(ctx context.Context) (Set, error)
}

// A Set is tools for one turn: the definitions a model is shown and the
// handler that serves exactly them (and declines any other name, see
// [Compose]). A Set is itself a [Source] that always offers itself, for a
// host that holds a fixed set.
type Set struct {
	Definitions []Definition
	Handler     Handler
	// Resources reads the resources of the MCP servers behind the tools,
	// by the server's name (as in [Origin]): the resource links in their
	// results point there. It holds each server that offers resources, and
	// is nil when none does. An agent offers the model a tool that reads
	// through it.
	Resources map[string]ResourceFunc
}

// A ResourceFunc reads the resource at uri and returns it as a model reads
// a tool's result.
type ResourceFunc func(ctx context.Context, uri string) (Result, error)

// Offer returns s.
func (s Set) Offer(context.Context) (Set, error) { return s, nil }

// Local returns the Set of local tools: their definitions, in order, and
// [Serve] of them.
func Local(tools ...Tool) Set {
	defs := make([]Definition, len(tools))
	for i, t := range tools {
		defs[i] = t.Definition()
	}
	return Set{Definitions: defs, Handler: Serve(tools...)}
}
