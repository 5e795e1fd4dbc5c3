// Command mcpbridge-chat is mcpbridge's chat command: a model on MCP
// servers' tools. "mcpbridge chat ARGS" runs "mcpbridge-chat ARGS",
// "mcpbridge web ARGS" "mcpbridge-chat web ARGS", and "mcpbridge run ARGS"
// "mcpbridge-chat run ARGS"; it is a program of its own because it holds
// the model vendors' SDKs and code mode's interpreter, which the other
// commands do without (see the mcpbridge command's documentation).
//
//	OPENAI_API_KEY=sk-... mcpbridge-chat -p "What notes do I have?"
//	OPENAI_BASE_URL=http://localhost:11434/v1 mcpbridge-chat --model qwen3:8b
//	ANTHROPIC_API_KEY=... mcpbridge-chat --config mcp.json
//
// Its flags, targets and exit statuses are chat's: mcpbridge-chat --help.
package main

import (
	"os"

	"github.com/mcpbridge/mcpbridge/cmd/internal/cli"
	"github.com/mcpbridge/mcpbridge/cmd/internal/cli/chat"
	"github.com/mcpbridge/mcpbridge/codemode"
)

func main() {
	// A script of run, or of chat --code, runs in this program started
	// again, where it can be stopped whatever it runs.
	codemode.ServeIfChild()
	os.Exit(cli.Program(chat.Command, os.Args[1:], chat.ChooseModel, chat.Web, chat.Run))
}
