package chat_test

import (
	"fmt"

	"github.com/mcpbridge/mcpbridge/cmd/internal/cli/chat"
)

// The chat command is a program of its own: cmd/mcpbridge-chat's main is
//
//	os.Exit(cli.Program(chat.Command, os.Args[1:], chat.ChooseModel))
//
// and mcpbridge runs that program with what follows "mcpbridge chat".
func Example() {
	fmt.Println("mcpbridge", chat.Command.Usage)
	// Output: mcpbridge chat [-p PROMPT] [--model NAME] [--code] [target]
}
