package mcptool_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

// serverEnv, set in a child's environment, makes this test binary an MCP
// server over stdio: "greeter" the Examples' server, "probe" the one
// TestCommand reads its environment from. ExampleFromCommand and the tests
// start it as any MCP server is started: a command, its arguments and its
// environment.
const serverEnv = "MCPTOOL_TEST_SERVER"

func TestMain(m *testing.M) {
	var server *mcp.Server
	switch os.Getenv(serverEnv) {
	case "":
		goleak.VerifyTestMain(m)
		return
	case "greeter":
		server = newGreeter()
	case "probe":
		server = newProbe()
	}
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}
