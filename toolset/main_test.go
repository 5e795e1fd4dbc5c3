package toolset_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

// serverEnv, set in a child's environment, makes this test binary the
// Examples' greeter over stdio, so that a config starts it as a command.
const serverEnv = "TOOLSET_TEST_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) == "" {
		goleak.VerifyTestMain(m)
		return
	}
	fmt.Fprintln(os.Stderr, "greeter: up") // for a test of Options.Server's Stderr
	if err := newGreeter().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}
