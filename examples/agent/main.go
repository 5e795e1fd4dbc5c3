// Command agent runs a model on an MCP server's tools: the agent of
// docs/library.md. It talks to any OpenAI-compatible endpoint (OpenAI,
// Ollama, vLLM, llama.cpp, LM Studio) and, with no MCP command given, to the
// bundled demo server (`mcpbridge serve-demo`: mcpbridge on PATH).
//
//	OPENAI_BASE_URL=http://localhost:11434/v1 MODEL=qwen3:8b go run ./examples/agent "Add a note to buy milk"
//	OPENAI_API_KEY=sk-... go run ./examples/agent "What notes do I have?" -- npx -y @modelcontextprotocol/server-memory
//
// With neither OPENAI_API_KEY nor OPENAI_BASE_URL set, it says what to set
// and exits with status 1, before starting anything.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"slices"

	"github.com/mcpbridge/mcpbridge/agent"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/llm/openai"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/tool"
)

func main() {
	if len(os.Args) < 2 {
		log.Fatal(`usage: agent "PROMPT" [-- MCP server command...]`)
	}
	if err := run(os.Args[1:], os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// errNoModel says which variables choose the model, as mcpbridge chat does.
var errNoModel = errors.New("no model configured: set OPENAI_API_KEY for api.openai.com, or OPENAI_BASE_URL " +
	"for an OpenAI-compatible server such as Ollama at http://localhost:11434/v1; MODEL names the model (default gpt-4.1-mini)")

func run(argv []string, w io.Writer) error {
	if os.Getenv("OPENAI_API_KEY") == "" && os.Getenv("OPENAI_BASE_URL") == "" {
		return errNoModel
	}
	server := mcptool.Command{Path: "mcpbridge", Args: []string{"serve-demo"}}
	if i := slices.Index(argv, "--"); i > 0 && i+1 < len(argv) {
		server = mcptool.Command{Path: argv[i+1], Args: argv[i+2:]}
	}
	ctx := context.Background()

	// The agent: one MCP server, one OpenAI-compatible model.
	tools := mcptool.FromCommand(server, &mcptool.Options{Name: "tools"})
	if err := tools.Connect(ctx); err != nil {
		if errors.Is(err, exec.ErrNotFound) && server.Path == "mcpbridge" {
			return fmt.Errorf("%w: install it with go install github.com/mcpbridge/mcpbridge/cmd/mcpbridge@latest (in a clone: go install ./cmd/mcpbridge)", err)
		}
		return err
	}
	defer tools.Close()
	model, err := openai.New(envOr("MODEL", "gpt-4.1-mini"), &openai.Options{BaseURL: envOr("OPENAI_BASE_URL", "https://api.openai.com/v1")})
	if err != nil {
		return err
	}
	// The server's instructions and skills come with its tools.
	a, err := agent.New(agent.Config{
		Model:  model,
		System: "You are a helpful assistant. Use the tools when they help.",
		Tools:  []tool.Source{tools},
	})
	if err != nil {
		return err
	}
	res, err := a.Run(ctx, []llm.Message{llm.UserText(argv[0])})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, res.Text)
	return err
}

func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}
