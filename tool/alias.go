package tool

// aliasPrefix starts the alias mcp__<server>__<tool> under which some agents,
// prompts and configs (Claude Code's, say) name a tool an MCP server serves.
const aliasPrefix = "mcp__"

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

// Alias returns the tool's alias, mcp__<server>__<tool>, or "" for a local
// tool.
func (o Origin) Alias() string {
	if o.Server == "" || o.Tool == "" {
		return ""
	}
	return aliasPrefix + o.Server + "__" + o.Tool
}
