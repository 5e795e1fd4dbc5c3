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
// Telemetry: with OTEL_EXPORTER_OTLP_ENDPOINT (or the other standard
// OpenTelemetry variables) set, a command exports its traces and metrics
// over OTLP/HTTP, in one trace per command; without them nothing is
// exported (see telemetry.go).
//
// Options: a command's flags are its configuration, and a command lists only
// the flags that matter to it; a flag left out leaves the libraries'
// defaults (their zero values), but --vendor, whose default each command's
// help states (lint checks all three vendors, chat follows its model).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// version is the release; a build may set it with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// Exit statuses.
const (
	exitOK        = 0
	exitFailed    = 1
	exitUsage     = 2
	exitTransport = 3
)

func main() {
	ctx, stop := notifyContext(context.Background())
	ctx, exported := startTelemetry(ctx, os.Args[1:], os.Getenv, os.Stderr) // OTEL_* variables: telemetry.go
	code := run(ctx, os.Args[1:], &streams{in: os.Stdin, out: os.Stdout, err: os.Stderr})
	exported(code)
	stop()
	os.Exit(code)
}

// streams are the command's standard streams, so tests can run it in-process.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

// A command registers its flags on fs and returns what runs it, given the
// positional arguments and the server command after "--" (if any). One with
// noArgs is refused any positional argument before it runs.
type command struct {
	name, usage, summary, examples string
	noArgs                         bool
	setup                          func(fs *flag.FlagSet) runFunc
}

type runFunc func(ctx context.Context, pos, serverCmd []string, s *streams) error

var commands []*command

func init() {
	commands = []*command{toolsCmd, callCmd, readCmd, infoCmd, lintCmd, chatCmd, serveDemoCmd}
}

func run(ctx context.Context, args []string, s *streams) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) > 1 {
			if c := find(args[1]); c != nil {
				printHelp(s.out, c)
				return exitOK
			}
		}
		printUsage(s.out)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	if args[0] == "--version" || args[0] == "version" {
		fmt.Fprintln(s.out, "mcpbridge", version)
		return exitOK
	}
	c := find(args[0])
	if c == nil {
		fmt.Fprintf(s.err, "mcpbridge: unknown command %q; run mcpbridge --help\n", args[0])
		return exitUsage
	}
	fs := newFlags(c.name)
	runner := c.setup(fs)
	pos, serverCmd, err := parse(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		printHelp(s.out, c)
		return exitOK
	}
	if err == nil && c.noArgs && len(pos) > 0 {
		err = usagef("%s takes no arguments, got %q", c.name, pos[0])
	}
	if err == nil {
		err = runner(ctx, pos, serverCmd, s)
	}
	if sig := stoppedBy(ctx); sig != nil {
		// Whatever the command was doing failed for that; say so alone.
		fmt.Fprintf(s.err, "mcpbridge %s: %v\n", c.name, sig)
		return sig.exitCode()
	}
	if err == nil {
		return exitOK
	}
	code := exitCode(err)
	if !errors.Is(err, errReported) {
		for _, line := range errorLines(err) {
			if strings.HasPrefix(line, " ") { // the line before goes on
				fmt.Fprintln(s.err, line)
				continue
			}
			fmt.Fprintf(s.err, "mcpbridge %s: %s\n", c.name, line)
		}
	}
	if code == exitUsage && errors.As(err, new(*usageError)) {
		fmt.Fprintf(s.err, "run mcpbridge %s --help for usage\n", c.name)
	}
	return code
}

func find(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func printUsage(w io.Writer) {
	fmt.Fprintf(w, `mcpbridge %s: MCP servers' tools as a model sees them

Usage: mcpbridge COMMAND [flags] [target]

Commands:
`, version)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-11s %s\n", c.name, c.summary)
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
  1    the tool ran and failed (isError), or lint found a tool a vendor would refuse
  2    usage or configuration error, or a request refused before it was sent
       (arguments that do not match the tool's schema, a server that offers no resources)
  3    connection, transport or protocol error, with a server or with the model;
       a server that did not start
  130  Ctrl-C; 143 SIGTERM, 129 SIGHUP (128+n after signal n)
`

func printHelp(w io.Writer, c *command) {
	fmt.Fprintf(w, "Usage: mcpbridge %s\n\n%s\n", c.usage, c.summary)
	fs := newFlags(c.name)
	c.setup(fs)
	fmt.Fprintln(w, "\nFlags:")
	printFlags(w, fs)
	if c.examples != "" {
		fmt.Fprintf(w, "\nExamples:\n%s\n", c.examples)
	}
	if c != serveDemoCmd {
		fmt.Fprint(w, "\n"+exitStatuses)
	}
}
