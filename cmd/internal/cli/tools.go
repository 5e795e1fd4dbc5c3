package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/codeapi"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/schema"
	"github.com/mcpbridge/mcpbridge/tool"
)

var toolsCmd = &Command{
	Name:    "tools",
	NoArgs:  true,
	Usage:   "tools [--long | --json | --code] [--vendor openai|anthropic|gemini] [--max-description N] [--sampling] [target]",
	Summary: "List the tools as the model sees them: final names, descriptions, parameters, annotations, apps.",
	Examples: `  mcpbridge tools
  mcpbridge tools --long                # whole descriptions, not their first lines
  mcpbridge tools --vendor openai --json -- npx -y @modelcontextprotocol/server-everything
  mcpbridge tools --config ~/.cursor/mcp.json
  mcpbridge tools --sampling -- npx -y @modelcontextprotocol/server-everything   # what call --sampling sees
  mcpbridge tools --code                # the TypeScript declarations mcpbridge run's scripts call

The words in brackets are the server's hints of what a tool does, not
promises: read-only (changes nothing), destructive (may delete or
overwrite), writes (changes things, not destructively), idempotent (a second
identical call changes nothing more), closed-world (reaches nothing outside
the server: no web, no other system). mcpbridge sends a call again after a
lost connection only for a read-only or idempotent tool.`,
	Setup: func(fs *flag.FlagSet) RunFunc {
		t := addAppTarget(fs)
		t.AddVendor(fs, schema.Anthropic, "the `VENDOR` whose rules names and schemas follow: openai, anthropic or gemini")
		t.AddMaxDescription(fs)
		asJSON := fs.Bool("json", false, "print the exact tool definitions in the vendor's wire format")
		t.AddListSampling(fs)
		long := fs.Bool("long", false, "print whole descriptions (without it, a description longer than a line is cut there and marked …)")
		code := fs.Bool("code", false, "print the tools as the TypeScript declarations a script of mcpbridge run calls")
		return func(ctx context.Context, pos, serverCmd []string, s *Streams) error {
			if *long && *asJSON {
				return Usagef("give --long (whole descriptions) or --json (the wire format, always whole), not both")
			}
			if *code && (*long || *asJSON) {
				return Usagef("give --code (the declarations) alone, not with --long or --json")
			}
			ts, _, err := t.Start(ctx, serverCmd, s)
			if err != nil {
				return err
			}
			defer t.Close(ts)
			if *code {
				if err := printDeclarations(ctx, s.Out, ts); err != nil {
					return err
				}
				return NotStarted(ts)
			}
			snap := ts.Snapshot(ctx)
			defs := snap.Definitions()
			if *asJSON {
				if err := printWire(s.Out, t.Vendor, defs); err != nil {
					return err
				}
				return NotStarted(ts)
			}
			if t.kind == targetDemo {
				// Whoever reads only the output knows whose tools these are.
				fmt.Fprintf(s.Out, "%s\n\n", Paint(UseColor(s.Out), Dim, demoNote))
			}
			printTools(s.Out, defs, *long, UseColor(s.Out))
			for _, d := range ts.Quarantined() {
				fmt.Fprintf(s.Err, "left out: %s\n", untrusted.Line(d.String()))
			}
			return NotStarted(ts)
		}
	},
}

// demoNote heads the tools of the bundled demo server, which a command
// given no server runs.
const demoNote = "The bundled demo server's tools (no server was given: name one after --, with --url or with --config)."

// printTools prints the catalog for a person: each description whole with
// long, else its first line, marked "…" when there was more. Whether a
// tool is strict is said of the fewer, by tool, and of the others once.
func printTools(w io.Writer, defs []tool.Definition, long, color bool) {
	if len(defs) == 0 {
		fmt.Fprintln(w, "no tools")
		return
	}
	strict := 0
	for _, d := range defs {
		if d.Strict {
			strict++
		}
	}
	markStrict := 2*strict <= len(defs)
	for i, d := range defs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s\n", Paint(color, Cyan, untrusted.Line(d.Name)))
		desc := strings.TrimSpace(untrusted.Text(d.Description))
		if !long {
			if line, rest, cut := strings.Cut(desc, "\n"); cut && strings.TrimSpace(rest) != "" {
				desc = strings.TrimSpace(line) + " …"
			}
		}
		if desc != "" {
			fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(desc, "\n", "\n  "))
		}
		if params := summarize(d.InputSchema); params != "" {
			fmt.Fprintf(w, "  parameters: %s\n", params)
		}
		if hints := hints(d.Annotations); hints != "" {
			fmt.Fprintf(w, "  %s\n", Paint(color, Dim, hints))
		}
		if app := d.App(); app.ResourceURI != "" {
			fmt.Fprintf(w, "  %s\n", Paint(color, Dim, "app: "+untrusted.Line(app.ResourceURI)+" (call --out DIR saves it)"))
		}
		switch {
		case markStrict && d.Strict:
			fmt.Fprintf(w, "  %s\n", Paint(color, Dim, "strict: the model's arguments always match the schema"))
		case !markStrict && !d.Strict:
			fmt.Fprintf(w, "  %s\n", Paint(color, Dim, "not strict: the model's arguments may not match the schema"))
		}
	}
	switch {
	case strict == len(defs):
		fmt.Fprintf(w, "\n%s\n", Paint(color, Dim, "strict: every tool: the model's arguments always match the schema"))
	case !markStrict:
		fmt.Fprintf(w, "\n%s\n", Paint(color, Dim, "strict: every tool not said otherwise: the model's arguments always match the schema"))
	}
}

// summarize lists a schema's parameters as "name type", required ones
// marked with "*", in the schema's order.
func summarize(raw json.RawMessage) string {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if json.Unmarshal(raw, &s) != nil || len(s.Properties) == 0 {
		return ""
	}
	var parts []string
	dec := json.NewDecoder(strings.NewReader(string(s.Properties)))
	if _, err := dec.Token(); err != nil {
		return ""
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			break
		}
		var prop struct {
			Type any `json:"type"`
		}
		if dec.Decode(&prop) != nil {
			break
		}
		name := fmt.Sprint(key)
		typ := "any"
		switch t := prop.Type.(type) {
		case string:
			typ = t
		case []any:
			var ts []string
			for _, x := range t {
				ts = append(ts, fmt.Sprint(x))
			}
			typ = strings.Join(ts, "|")
		}
		if slices.Contains(s.Required, name) {
			name += "*"
		}
		parts = append(parts, name+" "+typ)
	}
	out := untrusted.Line(strings.Join(parts, ", "))
	if len(s.Required) > 0 {
		out += "  (* required)"
	}
	return out
}

// hints describes the annotations that matter to a person deciding to call.
func hints(a *tool.Annotations) string {
	if a == nil {
		return ""
	}
	var h []string
	switch {
	case a.ReadOnly():
		h = append(h, "read-only")
	case a.Destructive():
		h = append(h, "destructive")
	default:
		h = append(h, "writes")
	}
	if a.IdempotentHint && !a.ReadOnly() {
		h = append(h, "idempotent")
	}
	if !a.OpenWorld() {
		h = append(h, "closed-world")
	}
	return "[" + strings.Join(h, ", ") + "]"
}

// printWire prints the definitions exactly as the vendor's API takes them.
// A snapshot's definitions always carry a schema: schema.Lower gives a tool
// without one an empty object's.
func printWire(w io.Writer, v schema.Vendor, defs []tool.Definition) error {
	wire, err := tool.VendorJSON(v, defs)
	if err != nil {
		return err
	}
	return WriteJSON(w, wire)
}

// printDeclarations prints the tools of src as the TypeScript a script of
// run programs against: package codeapi's, which has no interpreter, so
// that mcpbridge builds none (run itself is mcpbridge-chat's).
func printDeclarations(ctx context.Context, w io.Writer, src tool.Source) error {
	set, err := src.Offer(ctx)
	if err != nil {
		return err
	}
	api, err := codeapi.New(set.Definitions)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, api.Declare(api.All()))
	return err
}
