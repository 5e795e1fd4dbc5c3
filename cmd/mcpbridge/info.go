package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/skills"
	"github.com/mcpbridge/mcpbridge/toolset"
)

var infoCmd = &command{
	name:    "info",
	noArgs:  true,
	usage:   "info [target]",
	summary: "Show each server's info, protocol version, capabilities, extensions, skills and instructions.",
	examples: `  mcpbridge info
  mcpbridge info --url http://localhost:3001/mcp --header 'Authorization: Bearer $TOKEN'`,
	setup: func(fs *flag.FlagSet) runFunc {
		t := addTarget(fs)
		return func(ctx context.Context, pos, serverCmd []string, s *streams) error {
			ts, cfg, err := t.start(ctx, serverCmd, s)
			if err != nil {
				return err
			}
			defer ts.Close()
			color := useColor(s.out)
			for i, sc := range cfg.Servers {
				p, ok := ts.Provider(sc.Name)
				if !ok {
					continue
				}
				if i > 0 {
					fmt.Fprintln(s.out)
				}
				info := p.ServerInfo()
				fmt.Fprintf(s.out, "%s\n", paint(color, cyan, untrusted.Line(sc.Name)))
				fmt.Fprintf(s.out, "  server:       %s %s", untrusted.Line(info.Name), untrusted.Line(info.Version))
				if title := untrusted.Line(info.Title); title != "" {
					fmt.Fprintf(s.out, " (%s)", title)
				}
				fmt.Fprintln(s.out)
				fmt.Fprintf(s.out, "  protocol:     %s\n", untrusted.Line(p.ProtocolVersion()))
				fmt.Fprintf(s.out, "  capabilities: %s\n", untrusted.Line(capabilities(p)))
				if ext := p.ServerExtensions(); len(ext) > 0 {
					names := make([]string, 0, len(ext))
					for k := range ext {
						names = append(names, untrusted.Line(k))
					}
					sort.Strings(names)
					fmt.Fprintf(s.out, "  extensions:   %s\n", strings.Join(names, ", "))
				}
				fmt.Fprintf(s.out, "  tools:        %d\n", len(p.ToolNames()))
				if skills.Declared(p.ServerExtensions()) {
					list, err := skills.New(p).List(ctx)
					if err != nil {
						fmt.Fprintf(s.out, "  skills:       not listed: %s\n", untrusted.Line(err.Error()))
					}
					for i, sk := range list {
						head := "  skills:       "
						if i > 0 {
							head = "                "
						}
						fmt.Fprintf(s.out, "%s%s: %s\n", head, untrusted.Line(sk.Name), untrusted.Line(sk.Description))
					}
				}
				if text := strings.TrimSpace(untrusted.Text(p.Instructions())); text != "" {
					fmt.Fprintf(s.out, "  instructions:\n    %s\n", strings.ReplaceAll(text, "\n", "\n    "))
				}
			}
			return notStarted(ts)
		}
	},
}

// capabilities names the capabilities a server declared, compactly.
func capabilities(p *mcptool.Provider) string {
	caps := p.ServerCapabilities()
	if caps == nil {
		return "none"
	}
	data, _ := json.Marshal(caps)
	var m map[string]json.RawMessage
	json.Unmarshal(data, &m)
	var names []string
	for k, v := range m {
		if k == "extensions" {
			continue
		}
		if s := string(v); s != "{}" && s != "null" {
			k += " " + s
		}
		names = append(names, k)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

var readCmd = &command{
	name:    "read",
	usage:   "read URI [--server NAME] [target]",
	summary: "Read a resource and print it (binary contents are saved to a file).",
	examples: `  mcpbridge read notes://all
  mcpbridge read file:///tmp/x.txt -- npx -y @modelcontextprotocol/server-filesystem /tmp`,
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
			defer ts.Close()
			p, err := onlyServer(ts, cfg, t.server)
			if err != nil {
				return err
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
				fmt.Fprintf(s.out, "[%s, %d bytes, saved to %s]\n", untrusted.Line(c.MIMEType), len(c.Blob), f.Name())
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
