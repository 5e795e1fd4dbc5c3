package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/toolschema"
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
	// Resolver tells the policy the other names of a called tool. Nil means
	// the policy knows only the called name and, for an alias
	// mcp__<server>__<tool>, its tool part, until [Policy.For] tells it the
	// tools a host offers.
	Resolver Resolver
	// Approver, if set, is asked about every call the patterns let through,
	// just before it would run.
	Approver Approver
}

// A Call is a call as the approval hook sees it: the name it was made by,
// what the policy knows of the tool (package policy's Call says each
// field), and its arguments.
type Call struct {
	Name string
	Names
	Args json.RawMessage
}

// An Approver is asked about each call the patterns let through: it lets
// it run, or refuses it for reason (said to the model, may be empty), or
// fails.
type Approver func(ctx context.Context, c Call) (approved bool, reason string, err error)

// A Policy gates tool calls by the one rule that package policy's
// documentation states (policy.Policy): a deny matches any name of the
// tool, its own name as each vendor rewrites it included; an allow
// matches a name the tool is served by. It is immutable once made and safe
// for concurrent use (as long as its Resolver and Approver are).
type Policy struct {
	allow, deny []string
	resolve     Resolver
	approve     Approver
	namers      []*toolschema.Namer // each vendor's, for its rewrite of a name
}

// New makes a Policy from c. It returns an error naming the first pattern
// that is empty or not valid path.Match syntax (errors.Is(err,
// path.ErrBadPattern) holds for the latter), so that a typo never silently
// matches nothing.
func New(c Config) (*Policy, error) {
	p := &Policy{
		allow:   append([]string(nil), c.Allow...),
		deny:    append([]string(nil), c.Deny...),
		resolve: c.Resolver,
		approve: c.Approver,
		namers:  []*toolschema.Namer{toolschema.NewNamer(toolschema.OpenAI), toolschema.NewNamer(toolschema.Anthropic), toolschema.NewNamer(toolschema.Gemini)},
	}
	if err := validate("allow", p.allow); err != nil {
		return nil, err
	}
	if err := validate("deny", p.deny); err != nil {
		return nil, err
	}
	return p, nil
}

func validate(kind string, patterns []string) error {
	for _, pat := range patterns {
		if pat == "" {
			return fmt.Errorf("policy: %s pattern %q: empty pattern", kind, pat)
		}
		if _, err := path.Match(pat, ""); err != nil {
			return fmt.Errorf("policy: %s pattern %q: %w", kind, pat, err)
		}
	}
	return nil
}

// Check judges a call made by name with args, as [Policy.Handler] does before
// running it, for a host that runs calls its own way. It returns nil when the
// call may run; a [*tool.RefusedError] whose Message tells the model which
// rule refused it; or the approval hook's error, wrapped.
func (p *Policy) Check(ctx context.Context, name string, args json.RawMessage) error {
	c, names := p.expand(name)
	if msg := p.judge([]called{c}, name); msg != "" {
		return &tool.RefusedError{Name: name, Message: msg}
	}
	if p.approve == nil {
		return nil
	}
	approved, reason, err := p.approve(ctx, Call{Name: name, Names: names, Args: args})
	switch {
	case err != nil:
		return fmt.Errorf("approval of %q: %w", name, err)
	case approved:
		return nil
	}
	msg := fmt.Sprintf("the user declined to run %q", name)
	if reason != "" {
		msg += ": " + reason
	}
	return &tool.RefusedError{Name: name, Message: msg}
}

// Handler wraps next in the policy: a call runs on next only if [Policy.Check]
// lets it, and a refusal or approval error is returned without calling next.
//
// Put the gate around the whole composition ([tool.Compose]) rather than
// inside it: a refusal is an answer, not a decline, so a gate around one
// handler of a composition stops calls that a later handler would serve.
func (p *Policy) Handler(next tool.Handler) tool.Handler {
	return tool.HandlerFunc(func(ctx context.Context, name string, args json.RawMessage) (tool.Reply, error) {
		if err := p.Check(ctx, name, args); err != nil {
			return tool.Reply{}, err
		}
		return next.Call(ctx, name, args)
	})
}

// Allowed reports whether the patterns let through a tool known by all of
// names (each expanded through the resolver as a called name would be), so
// that a host offers the model only tools it may call: a denied tool should
// not be in the definitions the model reads. It does not consult the
// approval hook. With no names, nothing is allowed.
func (p *Policy) Allowed(names ...string) bool {
	var cs []called
	for _, n := range names {
		if n != "" {
			c, _ := p.expand(n)
			cs = append(cs, c)
		}
	}
	return len(cs) > 0 && p.judge(cs, "") == ""
}

// judge applies the patterns to the names of one tool, and returns "" when
// they allow it, or else a refusal message for the model naming the rule.
func (p *Policy) judge(cs []called, shown string) string {
	for _, c := range cs {
		for _, n := range c.names {
			if pat, ok := firstMatch(p.deny, n); ok {
				return fmt.Sprintf("the tool %q is denied by policy pattern %q", n, pat)
			}
		}
	}
	if len(p.allow) == 0 {
		return ""
	}
	for _, c := range cs {
		for _, n := range c.served {
			if _, ok := firstMatch(p.allow, n); ok {
				return ""
			}
		}
	}
	return fmt.Sprintf("the tool %q is not allowed by policy: it matches none of the allowed patterns %s", shown, quoteAll(p.allow))
}

// firstMatch returns the first pattern that matches name. The patterns were
// validated by New, so Match cannot fail.
func firstMatch(patterns []string, name string) (string, bool) {
	for _, pat := range patterns {
		if ok, _ := path.Match(pat, name); ok {
			return pat, true
		}
	}
	return "", false
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
