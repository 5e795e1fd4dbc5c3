package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/internal/skills"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
)

var infoCmd = &Command{
	Name:    "info",
	NoArgs:  true,
	Usage:   "info [--json] [target]",
	Summary: "Show each server's info, protocol version, capabilities, extensions, skills and instructions.",
	Examples: `  mcpbridge info
  mcpbridge info --url http://localhost:3001/mcp --header "Authorization: Bearer $TOKEN"

The protocol version is the one mcpbridge and the server agreed on: the
newest both speak over that transport. A go-sdk server speaks 2026-07-28
over stdio, but over streamable HTTP only when it keeps no sessions
(stateless); with sessions, as the demo's --http endpoint, and over SSE, the
two agree on 2025-11-25.

With --json, an array with an object per server, in the config's order:
  [{"name": "demo",            the server's name in the config
    "error": "...",            only for a server that did not start; nothing else is set then
    "server": {"name": "...", "version": "...", "title": "..."},
    "protocolVersion": "2026-07-28",
    "capabilities": {...},     as the server declared them
    "extensions": ["io.modelcontextprotocol/skills"],
    "tools": 8,
    "skills": [{"name": "...", "description": "..."}],
    "skillsError": "...",      why the declared skills could not be listed
    "instructions": "..."}]
  Empty fields are left out.`,
	Setup: func(fs *flag.FlagSet) RunFunc {
		t := AddTarget(fs)
		asJSON := fs.Bool("json", false, "print an array with an object per server (shape below)")
		return func(ctx context.Context, pos, serverCmd []string, s *Streams) error {
			ts, _, err := t.Start(ctx, serverCmd, s)
			if err != nil {
				return err
			}
			defer t.Close(ts)
			var infos []serverInfo
			for _, st := range ts.Status() {
				infos = append(infos, describe(ctx, ts, st, t.Logger()))
			}
			if *asJSON {
				err = WriteJSON(s.Out, infos)
			} else {
				printInfo(s.Out, infos, UseColor(s.Out))
			}
			if err != nil {
				return err
			}
			return NotStarted(ts)
		}
	},
}

// A serverInfo is what info says of one server, as --json prints it: a
// stable shape, documented in info's help.
type serverInfo struct {
	Name            string          `json:"name"`
	Error           string          `json:"error,omitempty"`
	Server          *implementation `json:"server,omitempty"`
	ProtocolVersion string          `json:"protocolVersion,omitempty"`
	Capabilities    json.RawMessage `json:"capabilities,omitempty"`
	Extensions      []string        `json:"extensions,omitempty"`
	Tools           int             `json:"tools,omitempty"`
	Skills          []skillInfo     `json:"skills,omitempty"`
	SkillsError     string          `json:"skillsError,omitempty"`
	Instructions    string          `json:"instructions,omitempty"`
}

type implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Title   string `json:"title,omitempty"`
}

type skillInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// describe gathers what info says of the server whose status is st.
func describe(ctx context.Context, ts *catalog.Toolset, st catalog.ServerStatus, logger *slog.Logger) serverInfo {
	info := serverInfo{Name: st.Name}
	p, ok := ts.Provider(st.Name)
	if !ok {
		info.Error = "did not start"
		if st.Err != nil {
			info.Error = st.Err.Error()
		}
		return info
	}
	impl := p.ServerInfo()
	info.Server = &implementation{impl.Name, impl.Version, impl.Title}
	info.ProtocolVersion = p.ProtocolVersion()
	if caps := p.ServerCapabilities(); caps != nil {
		info.Capabilities, _ = json.Marshal(caps)
	}
	for k := range p.ServerExtensions() {
		info.Extensions = append(info.Extensions, k)
	}
	sort.Strings(info.Extensions)
	info.Tools = len(p.ToolNames())
	if skills.Declared(p.ServerExtensions()) {
		list, err := skills.New(p, skills.WithLogger(logger)).List(ctx)
		if err != nil {
			info.SkillsError = err.Error()
		}
		for _, sk := range list {
			info.Skills = append(info.Skills, skillInfo{sk.Name, sk.Description})
		}
	}
	info.Instructions = p.Instructions()
	return info
}

// printInfo prints the servers' info for a person. A server that did not
// start is left out: the progress lines said why.
func printInfo(w io.Writer, infos []serverInfo, color bool) {
	first, older := true, false
	for _, info := range infos {
		if info.Server == nil {
			continue
		}
		if !first {
			fmt.Fprintln(w)
		}
		first = false
		fmt.Fprintf(w, "%s\n", Paint(color, Cyan, untrusted.Line(info.Name)))
		fmt.Fprintf(w, "  server:       %s %s", untrusted.Line(info.Server.Name), untrusted.Line(info.Server.Version))
		if title := untrusted.Line(info.Server.Title); title != "" {
			fmt.Fprintf(w, " (%s)", title)
		}
		fmt.Fprintln(w)
		mark := ""
		if isOlder(info.ProtocolVersion) {
			mark, older = " *", true
		}
		fmt.Fprintf(w, "  protocol:     %s%s\n", untrusted.Line(info.ProtocolVersion), mark)
		fmt.Fprintf(w, "  capabilities: %s\n", untrusted.Line(capabilities(info.Capabilities)))
		if len(info.Extensions) > 0 {
			fmt.Fprintf(w, "  extensions:   %s\n", untrusted.Line(strings.Join(info.Extensions, ", ")))
		}
		fmt.Fprintf(w, "  tools:        %d\n", info.Tools)
		if info.SkillsError != "" {
			fmt.Fprintf(w, "  skills:       not listed: %s\n", untrusted.Line(info.SkillsError))
		}
		for i, sk := range info.Skills {
			head := "  skills:       "
			if i > 0 {
				head = "                "
			}
			fmt.Fprintf(w, "%s%s: %s\n", head, untrusted.Line(sk.Name), untrusted.Line(sk.Description))
		}
		if text := strings.TrimSpace(untrusted.Text(info.Instructions)); text != "" {
			fmt.Fprintf(w, "  instructions:\n    %s\n", strings.ReplaceAll(text, "\n", "\n    "))
		}
	}
	if older {
		fmt.Fprintf(w, "\n* the newest protocol that server accepts over its transport; mcpbridge speaks up to %s\n", mcp.SupportedProtocolVersions()[0])
	}
}

// isOlder reports whether v is older than the newest protocol version
// mcpbridge speaks: then it is what the server accepts over its
// transport, not what mcpbridge chose (see info's help), which info says
// once, under the servers.
func isOlder(v string) bool { return v != "" && v < mcp.SupportedProtocolVersions()[0] }

// capabilities names the capabilities a server declared, compactly.
func capabilities(raw json.RawMessage) string {
	var m map[string]json.RawMessage
	json.Unmarshal(raw, &m)
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
