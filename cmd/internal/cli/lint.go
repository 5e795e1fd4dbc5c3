package cli

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/internal/plural"
	"github.com/mcpbridge/mcpbridge/internal/toolschema"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/schema"
	"github.com/mcpbridge/mcpbridge/tool"
)

var lintCmd = &Command{
	Name:    "lint",
	NoArgs:  true,
	Usage:   "lint [--vendor openai|anthropic|gemini] [--max-description N] [--long | --json] [target]",
	Summary: "Check every tool's name and schema against each vendor's rules, and say each description cut; exit 1 if a vendor would refuse a tool.",
	Examples: `  mcpbridge lint --config mcp.json
  mcpbridge lint --vendor gemini -- npx -y @modelcontextprotocol/server-everything
  mcpbridge lint --long                 # every change and rename, a line each
  mcpbridge lint --json | jq '.problems[] | select(.verdict == "refused")'

Each problem that makes a vendor refuse a tool has a line; what a vendor
gets changed or renamed is summed up, a line per vendor, server and
verdict naming the tools, unless --long lists each.

With --json, one object (the problems are [] when there are none):
  {"vendors": ["openai", "anthropic", "gemini"],
   "tools": 13,       the tools checked, each once whatever the vendors
   "refused": 1,      tools a vendor would refuse
   "changed": 5,      tools not refused that a vendor gets changed, renamed or cut
   "problems": [{"verdict": "refused" | "changed" | "renamed",
                 "vendor": "gemini" (or "all" for an output schema or a description),
                 "server": "...", "tool": "...",
                 "in": "name" | "inputSchema" | "outputSchema" | "description",
                 "pointer": "/properties/x" (into that schema; omitted for the root),
                 "message": "...",
                 "sentAs": "..." (for a rename: the name the vendor is sent)}]}`,
	Setup: func(fs *flag.FlagSet) RunFunc {
		t := AddTarget(fs)
		t.AddVendor(fs, "", "check only `VENDOR`'s rules: openai, anthropic or gemini (default: all three)")
		t.AddMaxDescription(fs)
		t.wholeDescriptions = true // to say each cut, from and to
		asJSON := fs.Bool("json", false, "print the report as one JSON object (shape below)")
		long := fs.Bool("long", false, "list every change and rename, a line each (without it, they are summed up)")
		return func(ctx context.Context, pos, serverCmd []string, s *Streams) error {
			if *long && *asJSON {
				return Usagef("give --long (every change) or --json (every problem, always), not both")
			}
			vendors := []schema.Vendor{schema.OpenAI, schema.Anthropic, schema.Gemini}
			if t.Vendor != "" {
				vendors = []schema.Vendor{t.Vendor}
			}
			ts, cfg, err := t.Start(ctx, serverCmd, s)
			if err != nil {
				return err
			}
			defer t.Close(ts)
			rep := lint(ts, cfg, vendors, t.descriptionCap)
			if *asJSON {
				err = WriteJSON(s.Out, rep)
			} else {
				rep.print(s.Out, *long, UseColor(s.Out))
			}
			if err != nil {
				return err
			}
			if err := NotStarted(ts); err != nil {
				return err
			}
			if rep.Refused > 0 {
				return &exitError{code: exitFailed, err: fmt.Errorf("%s would be refused", plural.Count(rep.Refused, "tool", "tools"))}
			}
			return nil
		}
	},
}

// A lintReport is what lint found, as --json prints it: a stable shape,
// documented in lint's help.
type lintReport struct {
	Vendors  []schema.Vendor `json:"vendors"`
	Tools    int             `json:"tools"`
	Refused  int             `json:"refused"`
	Changed  int             `json:"changed"`
	Problems []lintProblem   `json:"problems"`
}

// A lintProblem is one thing a vendor would refuse or change in one tool.
type lintProblem struct {
	Verdict string `json:"verdict"`
	Vendor  string `json:"vendor"`
	Server  string `json:"server"`
	Tool    string `json:"tool"`
	In      string `json:"in"`
	Pointer string `json:"pointer,omitempty"`
	Message string `json:"message"`
	SentAs  string `json:"sentAs,omitempty"`
}

// lint checks every tool of every running server of cfg for each vendor.
// An output schema is not lowered: it is checked once, whatever the
// vendor, and a tool that cannot use it is refused by all; so is a
// description, which every vendor gets cut to the server's cap (ts holds
// them whole).
func lint(ts *catalog.Toolset, cfg *config.Config, vendors []schema.Vendor, cap func(config.Server) int) *lintReport {
	rep := &lintReport{Vendors: vendors, Problems: []lintProblem{}}
	refused, changed := map[[2]string]bool{}, map[[2]string]bool{}
	add := func(p lintProblem) {
		rep.Problems = append(rep.Problems, p)
		if p.Verdict == "refused" {
			refused[[2]string{p.Server, p.Tool}] = true
		} else {
			changed[[2]string{p.Server, p.Tool}] = true
		}
	}
	for _, sc := range cfg.Servers {
		p, ok := ts.Provider(sc.Name)
		if !ok {
			continue
		}
		for _, def := range p.Tools() {
			rep.Tools++
			for _, d := range schema.LintOutput(def.OutputSchema) {
				add(lintProblem{Verdict: "refused", Vendor: "all", Server: sc.Name, Tool: def.Name, In: "outputSchema",
					Pointer: d.Pointer, Message: "output schema cannot be used: " + d.Message})
			}
			if cut := untrusted.Cut(def.Description, cap(sc)); cut != def.Description {
				from, to := utf8.RuneCountInString(def.Description), utf8.RuneCountInString(strings.TrimSuffix(cut, untrusted.CutMark))
				add(lintProblem{Verdict: "changed", Vendor: "all", Server: sc.Name, Tool: def.Name, In: "description",
					Message: fmt.Sprintf("description cut from %d to %d characters (--max-description, or the server's \"maxDescription\", raises the cap)", from, to)})
			}
		}
	}
	for _, v := range vendors {
		namer := toolschema.NewNamer(toolschema.Vendor(v))
		for _, sc := range cfg.Servers {
			p, ok := ts.Provider(sc.Name)
			if !ok {
				continue
			}
			sent := sentNames(namer, sc, p.Tools())
			for _, def := range p.Tools() {
				for _, d := range schema.Lint(v, wantedName(sc, def.Name), def.InputSchema) {
					pr := lintProblem{Verdict: "changed", Vendor: string(v), Server: sc.Name, Tool: def.Name, In: "inputSchema",
						Pointer: d.Pointer, Message: d.Message}
					switch {
					case d.Keyword == "name":
						pr.Verdict, pr.In, pr.SentAs = "renamed", "name", sent[def.Name]
						plain := namer.Rewrite(wantedName(sc, def.Name))
						if _, twin, ok := namer.Lookup(plain); ok && twin != def.Name {
							pr.Message += fmt.Sprintf(", and %q is tool %q's", plain, twin)
						}
					case d.Fatal:
						pr.Verdict = "refused"
					}
					add(pr)
				}
			}
		}
	}
	for k := range changed {
		if refused[k] {
			delete(changed, k)
		}
	}
	rep.Refused, rep.Changed = len(refused), len(changed)
	return rep
}

// wantedName is the name a tool of sc asks for: its own, namespaced.
func wantedName(sc config.Server, toolName string) string {
	if prefix := sc.ToolPrefix(); prefix != "" {
		return prefix + "_" + toolName
	}
	return toolName
}

// sentNames names the tools of server sc with namer as the toolset does:
// those whose names need no rewrite first, then the others, each group in
// byte order, so that of two tools the rewrite makes alike (a.b and a/b)
// lint says the hash suffix of the one the toolset gives it to.
func sentNames(namer *toolschema.Namer, sc config.Server, defs []tool.Definition) map[string]string {
	rank := func(name string) int {
		if w := wantedName(sc, name); namer.Rewrite(w) != w {
			return 1
		}
		return 0
	}
	order := slices.Clone(defs)
	slices.SortStableFunc(order, func(a, b tool.Definition) int {
		return cmp.Or(rank(a.Name)-rank(b.Name), strings.Compare(a.Name, b.Name))
	})
	sent := make(map[string]string, len(order))
	for _, d := range order {
		sent[d.Name], _ = namer.Add(sc.Name, d.Name, wantedName(sc, d.Name))
	}
	return sent
}

// maxNamed bounds the tools a summed-up line of lint names.
const maxNamed = 3

// print writes the report for a person: a line per problem that makes a
// vendor refuse a tool, and with long per other problem too, else a line
// per verdict, vendor and server that sums them up; then what it comes to,
// tools and problems counted apart.
func (rep *lintReport) print(w io.Writer, long, color bool) {
	paints := map[string]string{"refused": Red, "changed": Dim, "renamed": Dim}
	type group struct {
		verdict, vendor, server string
		tools                   []string
		problems                int
	}
	var groups []*group
	summed := map[[3]string]*group{}
	for _, p := range rep.Problems {
		if !long && p.Verdict != "refused" {
			k := [3]string{p.Verdict, p.Vendor, p.Server}
			g := summed[k]
			if g == nil {
				g = &group{verdict: p.Verdict, vendor: p.Vendor, server: p.Server}
				summed[k] = g
				groups = append(groups, g)
			}
			if !slices.Contains(g.tools, p.Tool) {
				g.tools = append(g.tools, p.Tool)
			}
			g.problems++
			continue
		}
		where := fmt.Sprintf("%s: server %q tool %q", p.Vendor, p.Server, p.Tool)
		switch {
		case p.In == "outputSchema":
			where += " at /outputSchema" + untrusted.Line(p.Pointer)
		case p.Pointer != "":
			where += " at " + untrusted.Line(p.Pointer)
		}
		line := fmt.Sprintf("%s %s: %s", Paint(color, paints[p.Verdict], p.Verdict), where, untrusted.Line(p.Message))
		if p.SentAs != "" {
			line += fmt.Sprintf("; sent as %q", p.SentAs)
		}
		fmt.Fprintln(w, line)
	}
	for _, g := range groups {
		count := plural.Count(len(g.tools), "tool", "tools")
		if g.problems != len(g.tools) {
			count += fmt.Sprintf(" (%d changes)", g.problems)
		}
		var named []string
		for _, n := range g.tools[:min(len(g.tools), maxNamed)] {
			named = append(named, untrusted.Line(n))
		}
		list := strings.Join(named, ", ")
		if more := len(g.tools) - len(named); more > 0 {
			list += fmt.Sprintf(" and %d more", more)
		}
		fmt.Fprintf(w, "%s %s: server %q: %s: %s\n", Paint(color, paints[g.verdict], g.verdict), g.vendor, g.server, count, list)
	}
	names := make([]string, len(rep.Vendors))
	for i, v := range rep.Vendors {
		names[i] = string(v)
	}
	problems := "no problems"
	if n := len(rep.Problems); n > 0 {
		problems = plural.Count(n, "problem", "problems")
	}
	if len(groups) > 0 {
		problems += "; --long lists each"
	}
	fmt.Fprintf(w, "checked %s for %s: %d refused, %d changed or renamed, %d unchanged (%s)\n",
		plural.Count(rep.Tools, "tool", "tools"), strings.Join(names, ", "), rep.Refused, rep.Changed,
		rep.Tools-rep.Refused-rep.Changed, problems)
}
