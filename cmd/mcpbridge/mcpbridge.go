package main

import (
	"os"

	"github.com/mcpbridge/mcpbridge/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:]))
}
