package tool

import "strings"

// AliasPrefix starts the alias mcp__<server>__<tool> under which some agents,
// prompts and configs (Claude Code's, say) name a tool an MCP server serves.
const AliasPrefix = "mcp__"

// An Origin says where a tool comes from: the MCP server that serves it, by
// the host's name for that server, and the server's own name for the tool,
// which may differ from the name a model calls it by (a namespaced or
// vendor-safe name). The zero Origin is a local tool's.
type Origin struct {
	// Server is the host's name for the server.
	Server string
	// Tool is the server's own name for the tool.
	Tool string
}

// IsZero reports whether o is a local tool's origin.
func (o Origin) IsZero() bool { return o == Origin{} }

// Alias returns the tool's alias, mcp__<server>__<tool>, or "" for a local
// tool.
func (o Origin) Alias() string {
	if o.Server == "" || o.Tool == "" {
		return ""
	}
	return AliasPrefix + o.Server + "__" + o.Tool
}

// AliasReadings returns every origin an alias can be read to name, the
// shortest server part first, or nil when name is no alias. Any "__" after
// the prefix may end the server part, so an alias whose server or tool name
// holds "__" has several readings; [ResolveAlias] says which one counts.
func AliasReadings(name string) []Origin {
	rest, ok := strings.CutPrefix(name, AliasPrefix)
	if !ok {
		return nil
	}
	var out []Origin
	for i := 1; i+2 < len(rest); i++ {
		if rest[i] == '_' && rest[i+1] == '_' {
			out = append(out, Origin{Server: rest[:i], Tool: rest[i+2:]})
		}
	}
	return out
}

// ResolveAlias reads the alias name as the one origin known accepts. It is
// the one rule every holder of tools applies: an alias names a tool only when
// exactly one of its readings names a tool the holder has; none is "not
// mine", and more than one is ambiguous, so nothing runs on a guess. ok is
// false in both cases, and ambiguous tells them apart.
func ResolveAlias(name string, known func(Origin) bool) (o Origin, ok, ambiguous bool) {
	n := 0
	for _, r := range AliasReadings(name) {
		if known(r) {
			o, n = r, n+1
		}
	}
	switch n {
	case 0:
		return Origin{}, false, false
	case 1:
		return o, true, false
	}
	return Origin{}, false, true
}
