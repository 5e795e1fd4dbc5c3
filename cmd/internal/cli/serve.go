package cli

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"

	"github.com/mcpbridge/mcpbridge/internal/demo"
)

var serveDemoCmd = &Command{
	Name:    "serve-demo",
	Usage:   "serve-demo [--http ADDR] [--notes FILE] [--reset]",
	Summary: "Run the bundled demo MCP server (notes, an image tool, an output schema, a failing tool) over stdio or HTTP.",
	Examples: `  mcpbridge serve-demo                       # stdio, for a client that starts it
  mcpbridge serve-demo --http 127.0.0.1:3001   # streamable HTTP at /mcp, SSE at /sse
  mcpbridge serve-demo --reset                 # forget the demo's notes

The demo keeps its notes in a file, so that one command sees the notes
another added: $` + demo.NotesEnv + ` if set, else demo-notes.json in the
mcpbridge directory of the user's cache (~/.cache/mcpbridge on Linux).`,
	Setup: func(fs *flag.FlagSet) RunFunc {
		addr := fs.String("http", "", "serve streamable HTTP (at /mcp) and SSE (at /sse) on `ADDR` instead of stdio")
		notes := fs.String("notes", "", "keep the notes in `FILE` (default: $"+demo.NotesEnv+", or demo-notes.json in the user's cache)")
		reset := fs.Bool("reset", false, "forget the notes (remove their file) and exit")
		return func(ctx context.Context, pos, serverCmd []string, s *Streams) error {
			if len(pos) > 0 || len(serverCmd) > 0 {
				return Usagef("serve-demo takes no arguments")
			}
			if *reset && *addr != "" {
				return Usagef("--reset forgets the notes and exits, serving nothing: --http goes without it")
			}
			path := *notes
			if path == "" {
				var err error
				if path, err = demo.DefaultNotesFile(); err != nil {
					return err
				}
			}
			if *reset {
				if err := demo.ResetNotes(path); err != nil {
					return err
				}
				fmt.Fprintf(s.Err, "demo notes forgotten (%s)\n", path)
				return nil
			}
			opt := demo.WithNotesFile(path)
			if *addr == "" {
				return demo.ServeStdio(ctx, opt)
			}
			ln, err := listen(*addr)
			if err != nil {
				return err
			}
			mux := http.NewServeMux()
			mux.Handle("/mcp", demo.HTTPHandler(opt))
			mux.Handle("/sse", demo.SSEHandler(opt))
			return serveUntilStopped(ctx, ln, mux, serverBounds{}, s, func(a net.Addr) string {
				return fmt.Sprintf("demo MCP server: http://%s/mcp (SSE: http://%s/sse), notes in %s", a, a, path)
			}, nil)
		}
	},
}
