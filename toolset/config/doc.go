// Package config reads the MCP servers a host runs, from the files people
// already keep: the mcpServers object of Claude Desktop, Cursor and Claude
// Code, or VS Code's servers ([Load], [Parse]; ${VAR} and ${VAR:-default}
// expanded from the environment), or a [Config] built in Go. Package toolset
// starts the servers of a Config as one set of tools; mcpbridge serve and
// the command line read the same files.
//
// What it promises:
//
//   - Parsing fails only on what it cannot read (malformed JSON, at its line
//     and column); every other mistake is kept for [Config.Validate], which
//     names them all at once, by server and key ([InvalidError]).
//   - A [Server] prints, and logs, without its secrets (environment and
//     header values, arguments, a URL's credentials, path and query).
//   - Nothing is started, read or reached here but the file itself: the
//     files an "auth" entry names are checked to exist, and read when the
//     server connects.
//
// It imports no MCP client: a program that only reads or checks configs
// stays small.
package config
