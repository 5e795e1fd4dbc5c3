package demo

import (
	"context"
	"fmt"
	"net/http"
	"os"

	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ChildEnv is the environment variable that turns a test binary or example
// program into the demo server; see [ServeIfChild]. Re-executing the current
// binary avoids a separate build step, so tests can talk to a real stdio
// subprocess with nothing but "go test".
const ChildEnv = "MCPBRIDGE_DEMO_CHILD"

// ServeStdio serves a fresh [New] server, made with opts, on stdin and
// stdout until the client closes stdin (a nil error) or ctx is cancelled
// (ctx's error). Nothing else may write to stdout meanwhile, since it
// carries the protocol.
func ServeStdio(ctx context.Context, opts ...Option) error {
	return New(opts...).Run(ctx, &mcp.StdioTransport{})
}

// ServeIfChild makes the current process act as the demo stdio server, its
// notes in memory, when it was started with ChildEnv=stdio, and exits when
// that session ends: 0
// when the client closed stdin, 1 on error. For any other value of ChildEnv,
// including unset, it returns at once.
//
// Call it first thing in TestMain or main, before flag parsing or any output
// to stdout, then start os.Executable() with ChildEnv=stdio added to its
// environment to get a demo server subprocess.
func ServeIfChild() {
	if os.Getenv(ChildEnv) != "stdio" {
		return
	}
	if err := ServeStdio(context.Background()); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", Name, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// HTTPHandler returns a streamable HTTP handler backed by one demo server,
// made with opts, shared by all sessions, so a note added in one session is
// visible in the next, as with a real remote server. Each call returns a
// handler with its own server and therefore its own notes, unless they are
// kept in one file ([WithNotesFile]).
func HTTPHandler(opts ...Option) http.Handler {
	s := New(opts...)
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
}

// SSEHandler returns a handler for the legacy HTTP+SSE transport (protocol
// version 2024-11-05), for exercising clients against older servers. Like
// [HTTPHandler], all of its sessions share one demo server, and each call
// creates a new one. Its skills/list and skills/get answer over this
// transport too, which go-sdk's own handler refuses ([sdkfix.SSEHandler]).
func SSEHandler(opts ...Option) http.Handler {
	s := New(opts...)
	return sdkfix.SSEHandler(func(*http.Request) *mcp.Server { return s })
}
