package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"sort"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/skills"
)

var infoCmd = &command{
	name:    "info",
	noArgs:  true,
	usage:   "info [target]",
	summary: "Show each server's info, protocol version, capabilities, extensions, skills and instructions.",
	examples: `  mcpbridge info
  mcpbridge info --url http://localhost:3001/mcp --header "Authorization: Bearer $TOKEN"`,
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
