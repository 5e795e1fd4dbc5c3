package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/plural"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/toolset"
)

var readCmd = &Command{
	Name:    "read",
	Usage:   "read URI [--server NAME] [target]",
	Summary: "Read a resource and print it (binary contents are saved to a file).",
	Examples: `  mcpbridge read notes://all                                  # the bundled demo server's notes
  mcpbridge read notes://all --url http://127.0.0.1:3001/mcp  # after mcpbridge serve-demo --http 127.0.0.1:3001

A server that declares no resources capability is not asked: the command says
so and exits with status 2, as for a tool that does not exist.`,
	Setup: func(fs *flag.FlagSet) RunFunc {
		t := addAppTarget(fs)
		var out dirFlag
		fs.Var(&out, "out", "the `DIR` binary contents are saved in (default: the system's temporary directory)")
		t.AddInput(fs)
		return func(ctx context.Context, pos, serverCmd []string, s *Streams) error {
			if len(pos) != 1 {
				return Usagef("read takes one resource URI")
			}
			ts, cfg, err := t.Start(ctx, serverCmd, s)
			if err != nil {
				return err
			}
			defer t.Close(ts)
			p, err := onlyServer(ts, cfg, t.server)
			if err != nil {
				return err
			}
			if caps := p.ServerCapabilities(); caps == nil || caps.Resources == nil {
				return &exitError{code: exitUsage, err: fmt.Errorf("server %q offers no resources (it declares no resources capability), so %s was not asked for", p.Name(), pos[0])}
			}
			res, err := p.ReadResource(ctx, pos[0])
			if err != nil {
				return err
			}
			for _, c := range res.Contents {
				if c.Blob == nil {
					fmt.Fprintln(s.Out, Content(s.Out, c.Text))
					continue
				}
				path, err := saveFile(string(out), "mcpbridge-resource-*", c.Blob)
				if err != nil {
					return err
				}
				fmt.Fprintf(s.Out, "[%s, %s, saved to %s]\n", untrusted.Line(c.MIMEType), plural.Count(len(c.Blob), "byte", "bytes"), path)
			}
			return nil
		}
	},
}

// onlyServer returns the one running server, or the one --server names.
func onlyServer(ts *toolset.Toolset, cfg *toolset.Config, name string) (*mcptool.Provider, error) {
	var running []string
	for _, sc := range cfg.Servers {
		if _, ok := ts.Provider(sc.Name); ok {
			running = append(running, sc.Name)
		}
	}
	if name == "" {
		if len(running) != 1 {
			return nil, Usagef("%d servers are running (%s): pick one with --server", len(running), strings.Join(running, ", "))
		}
		name = running[0]
	}
	p, ok := ts.Provider(name)
	if !ok {
		return nil, Usagef("server %q is not running", name)
	}
	return p, nil
}
