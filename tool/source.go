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
// [Compose]), with what the MCP servers behind them bring besides. A Set is
// itself a [Source] that always offers itself, for a host that holds a
// fixed set.
type Set struct {
	// Definitions are what the model is shown, in order.
	Definitions []Definition
	// Handler serves exactly the Definitions' names (and their aliases),
	// and declines any other.
	Handler Handler
	// Servers is what each MCP server behind the tools brings besides them,
	// by the server's name (as in [Origin]): its instructions, its skills,
	// its resources. It holds each server that brings any, and is nil when
	// none does. An agent puts the instructions and skills in its system
	// prompt, each under its server's name, and offers the model tools that
	// load the skills and read the resources: [Set.Brought] makes both.
	Servers map[string]Server
}

// A Server is what one MCP server brings besides its tools. All of it is
// the server's own text and content: a host quotes it as such, and it
// carries no authority.
type Server struct {
	// Instructions is what the server said, when the host connected, about
	// using its tools (its initialize result's instructions).
	Instructions string
	// Skills are the skills it publishes (the MCP Skills extension), as
	// listed: nothing of one is read until it is loaded.
	Skills []Skill
	// Resources, if the server has resources, reads the one at uri and
	// returns it as a model reads a tool's reply: the resource links in
	// its results point there.
	Resources func(ctx context.Context, uri string) (Reply, error)
}

// A Skill is one skill a server publishes: a set of instructions for one
// kind of task, with files, which a model loads when it takes the task up.
// The functions are safe for concurrent use; those of an MCP server's
// skills verify every read against the server's listing, and refuse the
// skill (an error saying what differed) on any mismatch.
type Skill struct {
	// Name is the skill's name, and Description when to use it. Two skills
	// of one server may share a name.
	Name, Description string
	// URI identifies the skill within its server: its SKILL.md's URI.
	URI string
	// Load reads the skill and returns its instructions (SKILL.md after its
	// frontmatter) and its other files, by their path within the skill
	// ("references/FORMS.md"), with their sizes in bytes.
	Load func(ctx context.Context) (instructions string, files map[string]int64, err error)
	// ReadFile reads one of the skill's files, by its path within the skill.
	ReadFile func(ctx context.Context, path string) ([]byte, error)
}

// Offer returns s.
func (s Set) Offer(context.Context) (Set, error) { return s, nil }

// Join returns the tools of sets as one Set: their definitions in order,
// a handler that serves exactly them ([Compose] of the sets' handlers,
// the first set's tool for a name two sets define, whose later definition
// is left out), and their servers (the first set's, for a server two sets
// bring). A host that takes several sources at once joins their Sets so.
func Join(sets ...Set) Set {
	var out Set
	var handlers []Handler
	seen := map[string]bool{}
	for _, s := range sets {
		for _, d := range s.Definitions {
			if !seen[d.Name] {
				seen[d.Name] = true
				out.Definitions = append(out.Definitions, d)
			}
		}
		if s.Handler != nil {
			handlers = append(handlers, s.Handler)
		}
		for name, srv := range s.Servers {
			if _, ok := out.Servers[name]; ok {
				continue
			}
			if out.Servers == nil {
				out.Servers = map[string]Server{}
			}
			out.Servers[name] = srv
		}
	}
	out.Handler = Compose(handlers...)
	return out
}
