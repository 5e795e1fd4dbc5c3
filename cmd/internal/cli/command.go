package cli

import (
	"context"
	"flag"
	"io"
	"os"
)

// Main runs mcpbridge with args, the words after the program's name (a
// command's name first), on the process's standard streams, and returns
// the exit status. Chat runs as a program of its own (see [Program]).
func Main(args []string) int {
	return runProcess(context.Background(), []*Command{toolsCmd, callCmd, runCmd, readCmd, infoCmd, lintCmd, chatCmd, webCmd, serveCmd, serveDemoCmd}, args)
}

// Program runs c as a program of its own, args being what "mcpbridge
// NAME" takes after NAME: mcpbridge-chat is chat. Its first argument
// "serve-demo" serves the demo instead, for the demo target starts the
// running executable with it (chat takes no positional argument, so the
// word is never chat's).
//
// models makes the model of a name for the commands that let servers
// sample it: mcpbridge-chat also runs "call --sampling" for mcpbridge,
// as its first argument "call" (again never chat's), and the commands
// more, each as its name first (web, run).
func Program(c *Command, args []string, models Models, more ...*Command) int {
	commands := append([]*Command{c, serveDemoCmd, callCmd}, more...)
	if len(args) == 0 || find(commands[1:], args[0]) == nil {
		args = append([]string{c.Name}, args...)
	}
	return runProcess(withModels(context.Background(), models), commands, args)
}

// runProcess runs args with commands on the process's standard streams,
// a stop signal cancelling the command's context, in a span of telemetry
// when the environment asks for it.
func runProcess(ctx context.Context, commands []*Command, args []string) int {
	ctx, stop := notifyContext(ctx)
	defer stop()
	var c *Command
	if len(args) > 0 {
		c = find(commands, args[0])
	}
	ctx, exported := startTelemetry(ctx, c, os.Getenv, os.Stderr) // OTEL_* variables: telemetry.go
	code := run(ctx, commands, args, &Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	exported(code)
	return code
}

// Streams are a command's standard streams.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
}

// A Command registers its flags on fs and returns what runs it, given the
// positional arguments and the server command after "--" (if any). One with
// NoArgs is refused any positional argument before it runs. One with a
// program is that program's (see [Program]): mcpbridge runs it with the
// command's arguments, and lists only its Name and Summary.
type Command struct {
	Name, Usage, Summary, Examples string
	NoArgs                         bool
	Setup                          func(fs *flag.FlagSet) RunFunc
	program                        string
	// takes is how many positional arguments the command takes at most:
	// a word after them is likely a server's command that "--" was
	// forgotten before.
	takes int
	// inChat reports, for the command's arguments, whether it must run in
	// the program mcpbridge-chat, where the models are (call --sampling).
	inChat func(args []string) bool
}

// A RunFunc runs a command, given its positional arguments and the server
// command after "--" (if any). Its error decides the exit status: 2 for a
// [Usagef] error or a configuration's, 3 for a connection error with a
// server or the model, 1 for any other.
type RunFunc func(ctx context.Context, pos, serverCmd []string, s *Streams) error
