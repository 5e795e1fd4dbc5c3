package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/schema"
)

var lintCmd = &command{
	name:    "lint",
	noArgs:  true,
	usage:   "lint [--vendor openai|anthropic|gemini] [target]",
	summary: "Check every tool's name and schema against each vendor's rules; exit 1 if a vendor would refuse a tool.",
	examples: `  mcpbridge lint --config mcp.json
  mcpbridge lint --vendor gemini -- npx -y @modelcontextprotocol/server-everything`,
	setup: func(fs *flag.FlagSet) runFunc {
		t := addTarget(fs)
		t.addVendor(fs, "", "check only `VENDOR`'s rules: openai, anthropic or gemini (default: all three)")
		return func(ctx context.Context, pos, serverCmd []string, s *streams) error {
			vendors := []schema.Vendor{schema.OpenAI, schema.Anthropic, schema.Gemini}
			if t.vendor != "" {
				vendors = []schema.Vendor{t.vendor}
			}
			ts, cfg, err := t.start(ctx, serverCmd, s)
			if err != nil {
				return err
			}
			defer ts.Close()
			color := useColor(s.out)
			refused, warnings, tools := 0, 0, 0
			// An output schema is not lowered: it is checked once, whatever
			// the vendor, and a tool that cannot use it is refused by all.
			for _, sc := range cfg.Servers {
				p, ok := ts.Provider(sc.Name)
				if !ok {
					continue
				}
				for _, def := range p.Tools() {
					for _, d := range schema.LintOutput(def.OutputSchema) {
						refused++
						fmt.Fprintf(s.out, "%s all: server %q tool %q at /outputSchema%s: output schema cannot be used: %s\n", paint(color, red, "refused"), sc.Name, def.Name, d.Pointer, d.Message)
					}
				}
			}
			for _, v := range vendors {
				namer := schema.NewNamer(v)
				for _, sc := range cfg.Servers {
					p, ok := ts.Provider(sc.Name)
					if !ok {
						continue
					}
					prefix := sc.ToolPrefix()
					for _, def := range p.Tools() {
						tools++
						name := def.Name
						if prefix != "" {
							name = prefix + "_" + def.Name
						}
						for _, d := range schema.Lint(v, name, def.InputSchema) {
							where := fmt.Sprintf("%s: server %q tool %q", v, sc.Name, def.Name)
							if d.Pointer != "" {
								where += " at " + untrusted.Line(d.Pointer)
							}
							d.Message = untrusted.Line(d.Message)
							switch {
							case d.Keyword == "name":
								final, _ := namer.Add(sc.Name, def.Name, name)
								warnings++
								fmt.Fprintf(s.out, "%s %s: %s; sent as %q\n", paint(color, dim, "rename"), where, d.Message, final)
							case d.Fatal:
								refused++
								fmt.Fprintf(s.out, "%s %s: %s\n", paint(color, red, "refused"), where, d.Message)
							default:
								warnings++
								fmt.Fprintf(s.out, "%s %s: %s\n", paint(color, dim, "changed"), where, d.Message)
							}
						}
					}
				}
			}
			fmt.Fprintf(s.out, "%d tool checks over %d vendor(s): %d refused, %d changed or renamed\n", tools, len(vendors), refused, warnings)
			if err := notStarted(ts); err != nil {
				return err
			}
			if refused > 0 {
				return &exitError{code: exitFailed, err: fmt.Errorf("%d tool(s) would be refused", refused)}
			}
			return nil
		}
	},
}
