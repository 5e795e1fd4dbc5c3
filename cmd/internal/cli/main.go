// Package cli is the mcpbridge command line but for chat: the commands,
// their flags and help, where the servers come from (a [Target]), how a
// failure is said and which exit status it gives. cmd/mcpbridge runs
// [Main]. Chat, web and run, in package chat, are a program of their own
// (cmd/mcpbridge-chat runs them through [Program]), for they alone need
// the model vendors' SDKs or code mode's interpreter: this package never
// imports them (tools --code declares the tools with package codeapi),
// and exports what chat needs of it
// ([Command], [Target], [Streams], [Usagef], [NotStarted], [WriteJSON],
// and the terminal helpers [IsTerminal], [Content], [UseColor] and
// [Paint]).
//
// Servers come from a command after --, from --url, or from --config (the
// mcpServers JSON of Claude Desktop, Cursor or VS Code); with none of them,
// ./mcp.json if it exists (once the user has trusted it on a terminal),
// else the bundled demo server. The commands that show MCP Apps (tools,
// call, read) declare the extension to the servers: tools marks a tool that
// has an interface, and call --out saves it next to the result.
//
// Exit status: 0 success; 1 the tool ran and failed, lint found a tool a
// vendor would refuse, or run's script threw or was stopped; 2 usage or configuration error, or a request refused
// before it was sent (arguments that do not match the tool's schema, a
// resource of a server that offers none); 3 connection, transport or
// protocol error, with a server (one that did not start included) or with
// the model; 128+n after signal n: 130 for Ctrl-C (SIGINT), 143 for SIGTERM,
// 129 for SIGHUP (a closed terminal). The servers are stopped in every case.
// A chat typed on a terminal takes a first Ctrl-C during a turn for that
// turn alone ([Turn]).
//
// What the servers ask of the host (hostio.go, ask.go): every command
// declares elicitation, and roots only where the user names them (each
// --root, else a server's "roots" in the config; none with --no-roots). Call, read and chat ask the user on the
// terminal, a field at a time with what it takes, its default and its
// choices, then the whole for review; without a terminal on stdin and
// stderr, or with --no-input, they decline with a line saying what was
// asked. A URL is shown whole with its host, opened in the browser
// ($BROWSER, else the system's opener) only when the user says yes, and
// never fetched. With --sampling, call and chat let the servers ask the
// model (chat's, from the environment: mcpbridge runs call --sampling in
// mcpbridge-chat), each request and answer shown on stderr.
//
// What a server sends is printed without terminal escapes or invisible
// characters; a tool's result and a resource's text only on a terminal (a
// pipe or a file gets them unchanged), and JSON output escapes them instead.
//
// Telemetry: with OTEL_EXPORTER_OTLP_ENDPOINT (or the other standard
// OpenTelemetry variables) set, a command exports its traces and metrics
// over OTLP/HTTP, in one trace per command; without them nothing is
// exported (see telemetry.go).
//
// Options: a command's flags are its configuration, and a command lists only
// the flags that matter to it; a flag left out leaves the libraries'
// defaults (their zero values), but --vendor, whose default each command's
// help states (lint checks all three vendors, chat follows its model).
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/near"
)

// version is the release; a build may set it with
// -ldflags "-X github.com/mcpbridge/mcpbridge/internal/cli.version=...".
var version = "0.1.0-dev"

// Exit statuses.
const (
	exitOK        = 0
	exitFailed    = 1
	exitUsage     = 2
	exitTransport = 3
)

func run(ctx context.Context, commands []*Command, args []string, s *Streams) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) < 2 || find(commands, args[1]) == nil {
			printUsage(s.Out, commands)
			if len(args) == 0 {
				return exitUsage
			}
			return exitOK
		}
		args = []string{args[1], "--help"}
	}
	if args[0] == "--version" || args[0] == "version" {
		fmt.Fprintln(s.Out, "mcpbridge", version)
		return exitOK
	}
	c := find(commands, args[0])
	if c == nil {
		fmt.Fprintln(s.Err, "mcpbridge: "+unknownCommand(commands, args))
		return exitUsage
	}
	if c.program != "" {
		return runProgram(c, args[1:], s)
	}
	if c.inChat != nil && modelsOf(ctx) == nil && c.inChat(args[1:]) {
		return runProgram(&Command{Name: c.Name, program: chatCmd.program}, args, s)
	}
	fs := newFlags(c.Name)
	runner := c.Setup(fs)
	takes := c.takes
	if c == serveDemoCmd {
		takes = len(args) // it starts no server: no word is one's
	}
	pos, serverCmd, err := parse(fs, args[1:], takes)
	if errors.Is(err, flag.ErrHelp) {
		printHelp(s.Out, c)
		return exitOK
	}
	if err == nil {
		if c.NoArgs && len(pos) > 0 {
			err = Usagef("%s takes no arguments, got %q", c.Name, pos[0])
		} else {
			err = runner(ctx, pos, serverCmd, s)
		}
		// A command refuses words it does not take first of all.
		if usage := (*usageError)(nil); errors.As(err, &usage) && len(pos) > takes && len(serverCmd) == 0 {
			usage.msg += "; " + afterDashes(c.Name, pos[takes], takes > 0)
		}
	}
	if sig := stoppedBy(ctx); sig != nil {
		// Whatever the command was doing failed for that; say so alone.
		fmt.Fprintf(s.Err, "mcpbridge %s: %v\n", c.Name, sig)
		return sig.exitCode()
	}
	if err == nil {
		return exitOK
	}
	code := exitCode(err)
	if !errors.Is(err, errReported) {
		for _, line := range errorLines(err) {
			if strings.HasPrefix(line, " ") { // the line before goes on
				fmt.Fprintln(s.Err, line)
				continue
			}
			fmt.Fprintf(s.Err, "mcpbridge %s: %s\n", c.Name, line)
		}
	}
	if code == exitUsage && errors.As(err, new(*usageError)) {
		fmt.Fprintf(s.Err, "run mcpbridge %s --help for usage\n", c.Name)
	}
	return code
}

// unknownCommand says why args does not start with a command: a flag given
// before the command (its name said, not its value, which may be a
// secret), or a command misspelt.
func unknownCommand(commands []*Command, args []string) string {
	name, _, _ := strings.Cut(args[0], "=")
	if !strings.HasPrefix(name, "-") {
		var known []string
		for _, c := range commands {
			known = append(known, c.Name)
		}
		if near := near.Suggest(args[0], known); near != "" {
			return fmt.Sprintf("unknown command %q; did you mean %s? run mcpbridge --help", args[0], near)
		}
		return fmt.Sprintf("unknown command %q; run mcpbridge --help", args[0])
	}
	for _, a := range args[1:] {
		if find(commands, a) != nil {
			return fmt.Sprintf("flags go after the command: mcpbridge %s %s ...", a, name)
		}
	}
	return fmt.Sprintf("%s is not a command: flags go after one; run mcpbridge --help", name)
}

func find(commands []*Command, name string) *Command {
	for _, c := range commands {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func printUsage(w io.Writer, commands []*Command) {
	fmt.Fprintf(w, `mcpbridge %s: MCP servers' tools as a model sees them

Usage: mcpbridge COMMAND [flags] [target]

Commands:
`, version)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-11s %s\n", c.Name, c.Summary)
	}
	fmt.Fprint(w, `
Target (where the servers come from), for every command but serve-demo:
  -- COMMAND ARGS...     a server started over stdio
  --url URL              a server over streamable HTTP (SSE if the path ends in /sse)
  --config FILE          an mcpServers / VS Code config; --server NAME picks one
  (none)                 ./mcp.json if present and trusted (asked once), else the bundled demo server

Run mcpbridge COMMAND --help for a command's flags and examples.
`)
	fmt.Fprint(w, "\n"+telemetryUsage+"\n"+exitStatuses)
}

// exitStatuses is what every help says of the exit statuses: the package
// doc's contract, in a table.
const exitStatuses = `Exit status:
  0    ok
  1    the tool ran and failed (isError), lint found a tool a vendor would refuse,
       or run's script threw (a tool's failure it did not catch among them) or was stopped
  2    usage or configuration error, or a request refused before it was sent
       (arguments that do not match the tool's schema, a server that offers no resources)
  3    connection, transport or protocol error, with a server or with the model;
       a server that did not start
  130  Ctrl-C; 143 SIGTERM, 129 SIGHUP (128+n after signal n)
`

func printHelp(w io.Writer, c *Command) {
	fmt.Fprintf(w, "Usage: mcpbridge %s\n\n%s\n", c.Usage, c.Summary)
	fs := newFlags(c.Name)
	c.Setup(fs)
	fmt.Fprintln(w, "\nFlags:")
	printFlags(w, fs)
	if c.Examples != "" {
		fmt.Fprintf(w, "\nExamples:\n%s\n", c.Examples)
	}
	if c != serveDemoCmd {
		fmt.Fprint(w, "\n"+exitStatuses)
	}
}
