// Package hostile is an MCP server that misbehaves on purpose, for tests.
//
// Everything a server sends is hostile input (SECURITY.md). This
// package is where each way a server can be hostile (or merely buggy) lives
// as a named mode, so that every promise of SECURITY.md is held by a test
// against a real server process, over stdio or HTTP, through the public API
// and the built command alike:
//
//   - [Serve] speaks newline-delimited JSON-RPC on any reader and writer, in
//     process (over pipes) or as a subprocess;
//   - [ServeIfChild] turns a re-executed test binary into the server, in the
//     mode named by the [ChildEnv] variable, so a test needs nothing but
//     "go test" to start a stdio server that misbehaves;
//   - [Server.Handler] serves a mode over HTTP: streamable HTTP with JSON
//     answers, or the mode's own misbehaviour at the HTTP level (a redirect
//     to the origin [Server.SetElsewhere] gave, event streams, the legacy
//     SSE transport); [Start] serves one on loopback for a test.
//
// The JSON-RPC is written by hand rather than with go-sdk's server, which
// would never send what these modes send. A mode is looked up by name
// ([Modes] lists them); the empty name is a well-behaved server with the
// tools echo and flaky.
//
// Options: a server is configured by its mode's name alone, and a child
// by environment variables ([ChildEnv] and the few its modes read); unset
// means the default.
package hostile
