// Command mcpbridge shows MCP servers' tools as a model sees them, calls
// them, checks a config against each model vendor's rules, and talks to the
// servers through a model.
//
//	mcpbridge tools                       # the bundled demo server's tools
//	mcpbridge tools -- npx -y @modelcontextprotocol/server-everything
//	mcpbridge call echo '{"message":"hi"}' --url http://localhost:3001/mcp
//	mcpbridge lint --config mcp.json
//	mcpbridge chat -p "What notes do I have?"
//
// chat is a program of its own, mcpbridge-chat, which mcpbridge runs with
// chat's arguments and streams, found next to mcpbridge or on PATH (go
// install ./cmd/... installs both): the model vendors' SDKs are built into
// it only, so that the main job builds fast. Built cold on 2 cores, the
// SDKs cost most of the build: mcpbridge with them took 2 min 25 s, 2.8 GB
// of memory, and was 55 MB; without them, FIGURES.
//
// Servers come from a command after --, from --url, or from --config (the
// mcpServers JSON of Claude Desktop, Cursor or VS Code); with none of them,
// ./mcp.json if it exists (once the user has trusted it on a terminal),
// else the bundled demo server.
//
// Exit status: 0 success; 1 the tool ran and failed, or lint found a tool a
// vendor would refuse; 2 usage or configuration error, or a request refused
// before it was sent (arguments that do not match the tool's schema, a
// resource of a server that offers none); 3 connection, transport or
// protocol error, with a server (one that did not start included) or with
// the model; 128+n after signal n: 130 for Ctrl-C (SIGINT), 143 for SIGTERM,
// 129 for SIGHUP (a closed terminal). The servers are stopped in every case.
//
// What a server sends is printed without terminal escapes or invisible
// characters; a tool's result and a resource's text only on a terminal (a
// pipe or a file gets them unchanged), and JSON output escapes them instead.
//
// Options: a command's flags are its configuration, and a command lists only
// the flags that matter to it; a flag left out leaves the libraries'
// defaults (their zero values), but --vendor, whose default each command's
// help states (lint checks all three vendors, chat follows its model).
package main
