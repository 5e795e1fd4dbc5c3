// Command quickstart is mcpbridge's main job in one screen: it starts the
// bundled demo MCP server as a subprocess over stdio, lists its tools as a
// model would see them, and calls them, printing what a model would read.
// The demo server is `mcpbridge serve-demo`, so mcpbridge must be on PATH:
//
//	go install github.com/mcpbridge/mcpbridge/cmd/mcpbridge@latest
//	go run ./examples/quickstart
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/tool"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer) error {
	// Any MCP server works the same way: mcptool.Command{Path: "npx", Args:
	// []string{"-y", "@modelcontextprotocol/server-everything"}}, or
	// mcptool.FromURL(mcptool.HTTP{URL: "http://localhost:8000/mcp"}, nil).
	//
	// The demo keeps its notes in a file between runs; this one gets a file
	// of its own, so that it adds nothing to the notes mcpbridge's commands
	// show you.
	dir, err := os.MkdirTemp("", "quickstart")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	demo := mcptool.Command{Path: "mcpbridge", Args: []string{"serve-demo", "--notes", filepath.Join(dir, "notes.json")}}
	notes := mcptool.FromCommand(demo, &mcptool.Options{Name: "notes"})
	if err := notes.Connect(ctx); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return fmt.Errorf("%w: install it with go install github.com/mcpbridge/mcpbridge/cmd/mcpbridge@latest (in a clone: go install ./cmd/mcpbridge)", err)
		}
		return err
	}
	defer notes.Close()

	info := notes.ServerInfo()
	fmt.Fprintf(w, "connected to %s %s\n\n", info.Name, info.Version)
	fmt.Fprintln(w, "tools, as the model sees them:")
	for _, def := range notes.Tools() {
		fmt.Fprintf(w, "  %-13s %s\n", def.Name, firstLine(def.Description))
	}

	// A local Go tool composes with the server's: local first, then MCP.
	clock, err := tool.Func("today", "Today's date.", func(context.Context, struct{}) (string, error) {
		return "2026-11-30", nil
	})
	if err != nil {
		return err
	}
	handler := tool.Compose(clock.Handler, notes.Handler())

	for _, c := range []struct{ name, args string }{
		{"add_note", `{"title": "Try mcpbridge", "body": "Run the quickstart.", "tags": ["go"]}`},
		{"search_notes", `{"query": "mcpbridge"}`},
		{"color_swatch", `{"color": "teal"}`},
		{"get_note", `{"id": 42}`},
	} {
		fmt.Fprintf(w, "\n> %s %s\n", c.name, c.args)
		res, err := handler.Call(ctx, c.name, json.RawMessage(c.args))
		if err != nil {
			// A failed tool is something the model reads and acts on.
			fmt.Fprintf(w, "  error for the model: %v\n", err)
			continue
		}
		for _, p := range res.Parts {
			switch p := p.(type) {
			case tool.TextPart:
				fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(p.Text, "\n", "\n  "))
			case tool.ImagePart:
				fmt.Fprintf(w, "  <%s image, %d bytes, sent to the model as an image>\n", p.MIMEType, len(p.Data))
			}
		}
	}
	return nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
