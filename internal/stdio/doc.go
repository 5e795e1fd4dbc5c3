// Package stdio starts an MCP server as a subprocess and speaks
// newline-delimited JSON-RPC with it over its stdin and stdout.
//
// It replaces go-sdk's mcp.CommandTransport, which is not safe to point at
// servers a user configured:
//
//   - It passes the whole parent environment to the server, so every API key
//     and token of the bridge leaks into every server. Here the server gets a
//     minimal environment ([MinimalEnv]) plus only what was asked for.
//   - It signals only the direct child. Servers are often launchers (npx, uvx,
//     shell wrappers) whose real work happens in a grandchild, which survives
//     Close. Here the server runs in its own process group and the whole
//     group is stopped, also when the direct child exits by itself.
//   - Its Close can take 15 seconds (three 5-second waits). Here each wait is
//     [Command.StopTimeout], 2 seconds by default.
//   - A single message over its 16 MiB line limit ends the session. Here the
//     oversized line is skipped without buffering it, and if it answers a
//     request, that request fails with an error saying why; the session goes
//     on. So does an answer that arrives but cannot be decoded (nested too
//     deep, cut short), rather than leaving its request to time out.
//
// It also bounds the SEP-2575 "server/discover" probe that go-sdk's client
// sends first: many servers in the wild neither answer nor reject unknown
// methods, and go-sdk would wait for the caller's whole connect timeout
// before falling back to "initialize". After [Command.ProbeTimeout] the
// connection answers the probe itself with "method not found", which makes
// go-sdk fall back at once.
//
// Inbound messages are decoded with a json.Decoder and a small struct kept
// across messages rather than with jsonrpc.DecodeMessage, which allocates a
// fresh decoder of about 64 KiB per message.
package stdio
