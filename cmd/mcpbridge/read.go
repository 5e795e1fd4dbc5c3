package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/plural"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/toolset"
)

var readCmd = &command{
	name:    "read",
	usage:   "read URI [--server NAME] [target]",
	summary: "Read a resource and print it (binary contents are saved to a file).",
	examples: `  mcpbridge read notes://all                                  # the bundled demo server's notes
  mcpbridge read notes://all --url http://127.0.0.1:3001/mcp  # after mcpbridge serve-demo --http 127.0.0.1:3001

A server that declares no resources capability is not asked: the command says
so and exits with status 2, as for a tool that does not exist.`,
	setup: func(fs *flag.FlagSet) runFunc {
		t := addTarget(fs)
		out := fs.String("out", "", "the `DIR` binary contents are saved in (default: the system's temporary directory)")
		return func(ctx context.Context, pos, serverCmd []string, s *streams) error {
			if len(pos) != 1 {
				return usagef("read takes one resource URI")
			}
			ts, cfg, err := t.start(ctx, serverCmd, s)
			if err != nil {
				return err
			}
			defer t.close(ts)
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
					fmt.Fprintln(s.out, content(s.out, c.Text))
					continue
				}
				dir := *out
				if dir == "" {
					dir = os.TempDir()
				}
				f, err := os.CreateTemp(dir, "mcpbridge-resource-*")
				if err != nil {
					return err
				}
				f.Write(c.Blob)
				if err := f.Close(); err != nil {
					return err
				}
				fmt.Fprintf(s.out, "[%s, %s, saved to %s]\n", untrusted.Line(c.MIMEType), plural.Count(len(c.Blob), "byte", "bytes"), f.Name())
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
			return nil, usagef("%d servers are running (%s): pick one with --server", len(running), strings.Join(running, ", "))
		}
		name = running[0]
	}
	p, ok := ts.Provider(name)
	if !ok {
		return nil, usagef("server %q is not running", name)
	}
	return p, nil
}
