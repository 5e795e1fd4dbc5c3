package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/plural"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

var readCmd = &Command{
	Name:    "read",
	takes:   1,
	Usage:   "read [URI] [--server NAME] [target]",
	Summary: "Read a resource and print it (binary contents are saved to a file); without a URI, list the resources.",
	Examples: `  mcpbridge read                                              # what the bundled demo server has to read
  mcpbridge read notes://all                                  # its notes
  mcpbridge read notes://all --url http://127.0.0.1:3001/mcp  # after mcpbridge serve-demo --http 127.0.0.1:3001

Without a URI, read lists each server's resources and resource templates
(a template's {placeholders} are filled in to make a URI to read).

A server that declares no resources capability is not asked, and a resource
the server does not have is refused: the command says so and exits with
status 2, as for a tool that does not exist.`,
	Setup: func(fs *flag.FlagSet) RunFunc {
		t := addAppTarget(fs)
		var out dirFlag
		fs.Var(&out, "out", "the `DIR` binary contents are saved in (default: the system's temporary directory)")
		t.AddInput(fs)
		return func(ctx context.Context, pos, serverCmd []string, s *Streams) error {
			switch {
			case len(pos) > 1:
				return Usagef("read takes one resource URI, or none to list them")
			case len(pos) == 0 && out != "":
				return Usagef("--out goes with a URI to read: without one, read lists the resources and saves nothing")
			}
			ts, cfg, err := t.Start(ctx, serverCmd, s)
			if err != nil {
				return err
			}
			defer t.Close(ts)
			if len(pos) == 0 {
				return listResources(ctx, s, ts, cfg, t.server)
			}
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
	return &exitError{code: exitUsage, err: fmt.Errorf("server %q has no resource %q: %s; mcpbridge read lists them", server, uri, untrusted.Line(said.Message))}
}

// listResources prints the resources and resource templates of each
// running server, or of the one --server names; with several, under the
// server's name.
func listResources(ctx context.Context, s *Streams, ts *catalog.Toolset, cfg *config.Config, only string) error {
	var providers []*mcpclient.Provider
	for _, sc := range cfg.Servers {
		if p, ok := ts.Provider(sc.Name); ok && (only == "" || sc.Name == only) {
			providers = append(providers, p)
		}
	}
	if only != "" && len(providers) == 0 {
		return Usagef("server %q is not running", only)
	}
	for i, p := range providers {
		indent := ""
		if len(providers) > 1 {
			if i > 0 {
				fmt.Fprintln(s.Out)
			}
			fmt.Fprintf(s.Out, "%s\n", untrusted.Line(p.Name()))
			indent = "  "
		}
		if caps := p.ServerCapabilities(); caps == nil || caps.Resources == nil {
			fmt.Fprintf(s.Out, "%sno resources (the server declares no resources capability)\n", indent)
			continue
		}
		resources, err := p.Resources(ctx)
		if err != nil {
			return err
		}
		templates, err := p.ResourceTemplates(ctx)
		if err != nil {
			return err
		}
		if len(resources)+len(templates) == 0 {
			fmt.Fprintf(s.Out, "%sno resources\n", indent)
			continue
		}
		for _, r := range resources {
			printResource(s.Out, indent, r.URI, cmp.Or(r.Title, r.Name), r.MIMEType, "", r.Description)
		}
		for _, r := range templates {
			note := "a template"
			if ph := placeholders(r.URITemplate); len(ph) > 0 {
				note += ": fill in " + strings.Join(ph, ", ")
			}
			printResource(s.Out, indent, r.URITemplate, cmp.Or(r.Title, r.Name), r.MIMEType, note, r.Description)
		}
	}
	return NotStarted(ts)
}

// printResource prints one resource or template: its URI, its title and
// what it holds on a line, its description indented below.
func printResource(w io.Writer, indent, uri, title, mime, note, desc string) {
	line := indent + untrusted.Line(uri)
	if title != "" {
		line += "  " + untrusted.Line(title)
	}
	if about := strings.Join(slices.DeleteFunc([]string{untrusted.Line(mime), note}, func(s string) bool { return s == "" }), "; "); about != "" {
		line += " (" + about + ")"
	}
	fmt.Fprintln(w, line)
	if desc = strings.TrimSpace(untrusted.Text(desc)); desc != "" {
		fmt.Fprintf(w, "%s  %s\n", indent, strings.ReplaceAll(desc, "\n", "\n  "+indent))
	}
}

// placeholders are the {expressions} of a URI template, as written.
func placeholders(template string) []string {
	var out []string
	for rest := template; ; {
		_, after, ok := strings.Cut(rest, "{")
		if !ok {
			return out
		}
		expr, tail, ok := strings.Cut(after, "}")
		if !ok {
			return out
		}
		out = append(out, untrusted.Line("{"+expr+"}"))
		rest = tail
	}
}

// onlyServer returns the one running server, or the one --server names.
func onlyServer(ts *catalog.Toolset, cfg *config.Config, name string) (*mcpclient.Provider, error) {
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
