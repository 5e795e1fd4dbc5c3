// Command hello bridges an MCP server's tools to a model, the model played
// by a list of calls: the tools as the model is told of them, a local Go
// tool beside them, and what the model reads back from each call.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type greeting struct {
	Name string `json:"name" jsonschema:"whom to greet"`
}

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "hello:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	// An MCP server, built here with go-sdk. Any other works the same way:
	// mcptool.FromCommand(mcptool.Command{Path: "npx", Args: []string{"-y",
	// "@modelcontextprotocol/server-everything"}}, nil) starts one over stdio,
	// mcptool.FromURL(mcptool.HTTP{URL: "https://host/mcp"}, nil) reaches one.
	server := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "greet", Description: "Greet someone by name."},
		func(_ context.Context, _ *mcp.CallToolRequest, in greeting) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hello, " + in.Name + "!"}}}, nil, nil
		})
	greeter := mcptool.FromServer(server, &mcptool.Options{Name: "greeter"})
	if err := greeter.Connect(ctx); err != nil { // handshake, tools listed: bounded
		return err
	}
	defer greeter.Close()

	// A local tool, made from a Go function.
	today, err := tool.Func("today", "Today's date.", func(context.Context, struct{}) (string, error) {
		return time.Now().Format(time.DateOnly), nil
	})
	if err != nil {
		return err
	}

	// The tools together, as one set.
	greeterTools, err := greeter.Offer(ctx)
	if err != nil {
		return err
	}
	tools := tool.Join(greeterTools, today)

	// What the model is told: each tool's name, description and input schema.
	for _, d := range tools.Definitions {
		fmt.Printf("%s: %s %s\n", d.Name, d.Description, d.InputSchema)
	}

	// One handler runs the model's calls, whichever tool they name.
	handler := tools.Handler
	for _, call := range []struct{ name, args string }{
		{"greet", `{"name": "Ada"}`},
		{"greet", `{"name": 42}`}, // refused before it is sent: the model reads why
		{"today", `{}`},
		{"weather", `{}`}, // no such tool
	} {
		res, err := handler.Call(ctx, call.name, json.RawMessage(call.args))
		if err != nil {
			fmt.Printf("> %s %s\n  error: %v\n", call.name, call.args, err)
			continue
		}
		fmt.Printf("> %s %s\n  %s\n", call.name, call.args, res.Text())
	}
	return nil
}
