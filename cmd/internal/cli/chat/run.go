package chat

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/mcpbridge/mcpbridge/cmd/internal/cli"
	"github.com/mcpbridge/mcpbridge/codemode"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/mcptool"
)

// maxScript bounds the script run reads.
const maxScript = 1 << 20

// Run is mcpbridge's run command: a script of code mode against the
// servers' tools. It is mcpbridge-chat's, run given its name first, for its
// interpreter (package codemode's QuickJS) would weigh on every build of
// mcpbridge (the README's Build cost); tools --code declares the tools
// without it.
var Run = &cli.Command{
	Name:    "run",
	Usage:   "run SCRIPT.js | - [--json] [--timeout D] [--max-calls N] [target]",
	Summary: cli.RunSummary,
	Examples: `  mcpbridge run - <<<'await tools.demo.add_note({title: "a", body: "b"}); return await tools.demo.search_notes({query: "a"})'
  mcpbridge run report.js --config mcp.json --json
  mcpbridge tools --code          # the declarations a script programs against

The script is the body of an async function. Each tool is an async
function tools.SERVER.TOOL(args), named as mcpbridge tools --code declares
it (the server's and the tool's names made identifiers: the demo server is
demo, a server after -- is named for what it runs, mcp-server-everything
is mcp_server_everything); callTool(name, args) calls one by its own name
or its alias mcp__SERVER__TOOL. A call resolves to the tool's structured
result when it has one, else its text; an image is {type: "image",
mimeType, bytes} (its data too with the option {images: "base64"} after
the arguments); a tool that fails (isError) throws an Error whose name is
ToolError and whose message is the tool's. Promise.all runs calls in
parallel, 8 at a time.

The script reaches nothing else: no module, file, network or timer. It
runs in a process of its own, stopped past 1 minute (--timeout), 10 s of
computing, 64 MiB of memory, 200 tool calls (--max-calls), or 64 KiB of
output, and at once by Ctrl-C; a call whose result would pass 32 MiB of
results in all throws an Error named BudgetError.

What it returns is printed on stdout (a string as it is, anything else as
JSON; --json prints JSON either way), what it logs with console.log on
stderr, then a line that sums up its calls. Exit status 1 when the script
threw (a tool's failure it did not catch among them) or was stopped.

Like chat, run is a command of the program mcpbridge-chat, where the
interpreter is: mcpbridge runs it with the same arguments.`,
	Setup: func(fs *flag.FlagSet) cli.RunFunc {
		t := cli.AddTarget(fs)
		asJSON := fs.Bool("json", false, "print what the script returns as JSON, a string too")
		timeout := fs.Duration("timeout", 0, "stop the script after `DURATION`, its calls' time included (default 1m)")
		maxCalls := fs.Int("max-calls", 0, "stop the script at its `N`th tool call past the budget (default 200)")
		return func(ctx context.Context, pos, serverCmd []string, s *cli.Streams) error {
			if len(pos) != 1 {
				return cli.Usagef("run takes one script: a file, or - for stdin")
			}
			if *timeout < 0 || *maxCalls < 0 {
				return cli.Usagef("--timeout and --max-calls cannot be negative")
			}
			script, err := readScript(pos[0], s.In)
			if err != nil {
				return err
			}
			ts, _, err := t.Start(ctx, serverCmd, s)
			if err != nil {
				return err
			}
			defer t.Close(ts)
			set, err := ts.Offer(ctx)
			if err != nil {
				return err
			}
			rt, err := codemode.New(set, codemode.Config{Timeout: *timeout, MaxCalls: *maxCalls})
			if err != nil {
				return err
			}
			out, err := rt.Run(ctx, script)
			if out.Console != "" {
				fmt.Fprint(s.Err, cli.Content(s.Err, out.Console))
			}
			if err == nil && out.Value != nil {
				if werr := printValue(s.Out, out.Value, *asJSON); werr != nil {
					return werr
				}
			}
			fmt.Fprintln(s.Err, cli.Paint(cli.UseColor(s.Err), cli.Dim, out.Summary))
			if err != nil {
				return scriptFailed(err)
			}
			return cli.NotStarted(ts)
		}
	},
}

// readScript reads the script at path, or stdin for "-".
func readScript(path string, stdin io.Reader) (string, error) {
	var r io.Reader = stdin
	where := "on stdin"
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return "", cli.Usagef("the script: %v", err)
		}
		defer f.Close()
		r, where = f, "in "+path
	}
	data, err := io.ReadAll(io.LimitReader(r, maxScript+1))
	switch {
	case err != nil:
		return "", fmt.Errorf("reading the script: %w", err)
	case len(data) > maxScript:
		return "", cli.Usagef("the script %s is over %d bytes", where, maxScript)
	case len(data) == 0:
		return "", cli.Usagef("no script %s", where)
	}
	return string(data), nil
}

// printValue prints what a script returned: a string as it is (cleaned
// on a terminal, as a tool's text is), anything else as JSON.
func printValue(w io.Writer, v json.RawMessage, asJSON bool) error {
	var str string
	if !asJSON && json.Unmarshal(v, &str) == nil {
		fmt.Fprintln(w, cli.Content(w, str))
		return nil
	}
	return cli.WriteJSON(w, v)
}

// budgetFlags are the flags of run that set a script's budgets, by the
// budget's name in codemode.Config.
var budgetFlags = map[string]string{"Timeout": "--timeout", "MaxCalls": "--max-calls"}

// scriptFailed is a script's failure with its exit status: 3 for a call
// whose server could not be reached, which the script did not catch (the
// status says the error's kind, as call's does: the chain is kept), else
// 1, the status of an error of no kind; the message is the script's, on
// one line.
func scriptFailed(err error) error {
	var (
		se        *codemode.ScriptError
		be        *codemode.BudgetError
		transport *mcptool.TransportError
		protocol  *mcptool.ProtocolError
	)
	switch {
	case errors.As(err, &se) && se.Err != nil && (errors.As(se.Err, &transport) || errors.As(se.Err, &protocol)):
		return err
	case errors.As(err, &be):
		msg := err.Error()
		if flag := budgetFlags[be.Budget]; flag != "" {
			msg += " (raise it with " + flag + ")"
		}
		return errors.New(untrusted.Line(msg))
	case errors.As(err, &se):
		return errors.New(untrusted.Line(err.Error()))
	}
	return err
}
