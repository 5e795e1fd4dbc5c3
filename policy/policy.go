package policy

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/mcpbridge/mcpbridge/internal/gate"
	"github.com/mcpbridge/mcpbridge/internal/handle"
	"github.com/mcpbridge/mcpbridge/tool"
)

// Config is what a [Policy] is made from. The zero Config allows every call
// without asking.
type Config struct {
	// Allow holds glob patterns (path.Match syntax) over the names tools are
	// served by (kb_search, mcp__kb__search; see [Policy]). When it is
	// empty, every tool that no Deny pattern matches is allowed; when it is
	// not, a tool must match one of them.
	Allow []string
	// Deny holds glob patterns over tool names. A tool that any of its names
	// matches is refused, whatever Allow says.
	Deny []string
	// Approver, if set, is asked about every call the patterns let through,
	// just before it would run. See [AskUnlessReadOnly].
	Approver Approver
}

// A Policy gates tool calls: allow and deny patterns judged over the names
// a call goes by, then an optional approval hook. It is immutable once made
// and safe for concurrent use (as long as its Approver is).
//
// The one rule: a deny matches any name of the tool; an allow matches a
// name the tool is served by, which includes its server when the host
// namespaces. Exactly, for a call made by some name:
//
//  1. Its names are the called name; for a tool of the Set the policy
//     gates ([Policy.Gate]), the tool's own name, its namespaced name and
//     the alias mcp__<server>__<tool>, from its definition's Origin;
//     when the called name is an alias, every tool part it can be read to
//     have (more than one when a server or tool name holds "__"); and what
//     each vendor's naming rules make of each of these (delete.dir is
//     offered as delete_dir).
//  2. If any of these names matches a Deny pattern, the call is refused.
//  3. Otherwise, with no Allow patterns, it is allowed. With some, it is
//     allowed if one of them matches a name the tool is served by: for a
//     tool of the Set, its final name (as the model is offered it) and its
//     alias; else the called name, unless it is an alias with several
//     readings. Else it is refused.
//  4. A call that passed is shown to the Approver, if any, which approves it,
//     refuses it, or fails.
//
// So write a deny against the tool's own name (delete_*), which every call
// of the tool is judged under, and an allow against the names the model is
// offered (github_*, or mcp__github__*): an allow of a tool's own name
// alone cannot reach another server's tool that happens to share it
// (server notes's github_push, served as notes_github_push, is no match
// for github_*).
type Policy struct{ core }

// core is the policy engine a Policy wraps (package internal/handle says
// why it is embedded).
type core = handle.Of[gate.Policy]

// New makes a Policy from c. It returns an error naming the first pattern
// that is empty or not valid path.Match syntax (errors.Is(err,
// path.ErrBadPattern) holds for the latter), so that a typo never silently
// matches nothing.
func New(c Config) (*Policy, error) {
	gc := gate.Config{Allow: c.Allow, Deny: c.Deny}
	if ask := c.Approver; ask != nil {
		gc.Approver = func(ctx context.Context, c gate.Call) (bool, string, error) {
			d, err := ask(ctx, Call{Name: c.Name, Tool: c.Tool, Server: c.Server, Namespaced: c.Namespaced, Annotations: c.Annotations, Args: c.Args})
			return d.Approved, d.Reason, err
		}
	}
	p, err := gate.New(gc)
	if err != nil {
		return nil, err
	}
	return handle.Wrap[Policy](p), nil
}

// Gate returns set behind the policy: the definitions it allows, in order
// (a denied tool is not even offered to the model), and a handler that
// judges each call before set's handler runs it, under every name set's
// definitions give the tool. A refusal comes back as a [*tool.RefusedError]
// whose Message tells the model which rule refused it, and set's handler
// is not called; an approver's error comes back wrapped.
//
// Gate the whole of what a host offers (a [tool.Join] of its sources)
// rather than one source of it: a refusal is an answer, not a decline, so
// a gate around one handler of a composition stops calls that a later
// handler would serve. A nil Policy lets everything through.
func (p *Policy) Gate(set tool.Set) tool.Set {
	if p == nil {
		return set
	}
	g := handle.Core[gate.Policy](p).For(set.Definitions)
	out := set
	out.Definitions = slices.DeleteFunc(slices.Clone(set.Definitions), func(d tool.Definition) bool { return !g.Allowed(d.Name) })
	next := set.Handler
	if next == nil {
		next = tool.Compose()
	}
	out.Handler = g.Handler(next)
	return out
}

// Check judges a call made by name with args, as the handler of
// [Policy.Gate] does before running it, for a host that runs calls its own
// way (mcptool.Sampling's CheckTool, say). It knows the called name and,
// for an alias, its tool part: a deny pattern on a tool's own name holds,
// and a rule on a namespaced name needs the call made by that name. It
// returns nil when the call may run; a [*tool.RefusedError] whose Message
// tells the model which rule refused it; or the approval hook's error,
// wrapped.
func (p *Policy) Check(ctx context.Context, name string, args json.RawMessage) error {
	return handle.Core[gate.Policy](p).Check(ctx, name, args)
}
