package cli_test

import (
	"context"
	"flag"
	"fmt"

	"github.com/mcpbridge/mcpbridge/cmd/internal/cli"
)

// A command run as a program of its own, as cmd/mcpbridge-chat runs chat:
// the arguments are the command's, and its help and errors are mcpbridge's.
func ExampleProgram() {
	hello := &cli.Command{
		Name:    "hello",
		Usage:   "hello [--name NAME]",
		Summary: "Say hello.",
		NoArgs:  true,
		Setup: func(fs *flag.FlagSet) cli.RunFunc {
			name := fs.String("name", "world", "who to greet, by `NAME`")
			return func(ctx context.Context, pos, serverCmd []string, s *cli.Streams) error {
				fmt.Fprintf(s.Out, "hello, %s\n", *name)
				return nil
			}
		},
	}
	cli.Program(hello, []string{"--name", "gopher"}, nil)
	cli.Program(hello, []string{"--help"}, nil)
	fmt.Println("exit status", cli.Program(hello, []string{"extra"}, nil))
	// Output:
	// hello, gopher
	// Usage: mcpbridge hello [--name NAME]
	//
	// Say hello.
	//
	// Flags:
	//   --name NAME
	//         who to greet, by NAME (default: world)
	//
	// Exit status:
	//   0    ok
	//   1    the tool ran and failed (isError), lint found a tool a vendor would refuse,
	//        or run's script threw (a tool's failure it did not catch among them) or was stopped
	//   2    usage or configuration error, or a request refused before it was sent
	//        (arguments that do not match the tool's schema, a server that offers no resources)
	//   3    connection, transport or protocol error, with a server or with the model;
	//        a server that did not start
	//   130  Ctrl-C; 143 SIGTERM, 129 SIGHUP (128+n after signal n)
	// exit status 2
}
