// Package toolset will run many MCP servers as one set of tools. For now it
// holds what that starts from: the configuration, read from the mcpServers
// file people already keep for Claude Desktop, Cursor, Claude Code or VS
// Code ([Load], [Parse]), checked all at once ([Config.Validate]), and turned
// server by server into [mcptool.Provider] values ([ServerConfig.Provider]).
// Starting the servers together and joining their tools into one catalog
// come next.
package toolset
