package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/plural"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/toolset"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

var readCmd = &Command{
	Name:    "read",
	Usage:   "read URI [--server NAME] [target]",
	Summary: "Read a resource and print it (binary contents are saved to a file).",
	Examples: `  mcpbridge read notes://all                                  # the bundled demo server's notes
  mcpbridge read notes://all --url http://127.0.0.1:3001/mcp  # after mcpbridge serve-demo --http 127.0.0.1:3001

A server that declares no resources capability is not asked, and a resource
the server does not have is refused: the command says so and exits with
status 2, as for a tool that does not exist.`,
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
				return noResource(p.Name(), pos[0], err)
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

// noResource says of a read the server refused because it has no such
// resource that it has none, with the usage status, as for a tool that
// does not exist; other errors pass as they are. The specification's code
// for it is invalid params since SEP-2164, -32002 before.
func noResource(server, uri string, err error) error {
	protocol, ok := errors.AsType[*mcptool.ProtocolError](err)
	if !ok || protocol.Code != jsonrpc.CodeInvalidParams && protocol.Code != -32002 {
		return err
	}
	var said *jsonrpc.Error
	if !errors.As(err, &said) {
		return err
	}
	return &exitError{code: exitUsage, err: fmt.Errorf("server %q has no resource %q: %s", server, uri, said.Message)}
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
