package main

import (
	"os"

	"github.com/mcpbridge/mcpbridge/cmd/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:]))
}
