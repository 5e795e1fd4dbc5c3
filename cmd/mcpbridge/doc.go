// Command mcpbridge shows MCP servers' tools as a model sees them, calls
// them, checks a config against each model vendor's rules, and talks to the
// servers through a model.
//
//	mcpbridge tools                       # the bundled demo server's tools
//	mcpbridge tools -- npx -y @modelcontextprotocol/server-everything
//	mcpbridge call list_notes --url http://localhost:3001/mcp
//	mcpbridge lint --config mcp.json
//	mcpbridge chat -p "What notes do I have?"
//
// chat is a program of its own, mcpbridge-chat, which mcpbridge runs with
// chat's arguments and streams, found next to mcpbridge or on PATH (go
// install ./cmd/... installs both): the model vendors' SDKs, which only
// chat and web need, and code mode's interpreter, which only run needs
// (mcpbridge runs web and run in that program too), are built into it
// alone. Measured cold on 2 cores,
// go run ./cmd/mcpbridge tools took 271 s of CPU, 2.9 GB of memory and made
// a 115 MB binary with chat built in; it takes 93 s, 0.3 GB and 30 MB
// without (docs/performance.md, Build cost).
//
// Where the servers come from, what each command prints and the exit
// statuses are in mcpbridge --help, in each command's --help and in
// docs/cli.md; package cmd/internal/cli implements them.
//
// Options: a command's flags are its configuration, and a command lists only
// the flags that matter to it; a flag left out leaves the libraries'
// defaults (their zero values), but --vendor, whose default each command's
// help states (lint checks all three vendors, chat follows its model).
package main
