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
//     on. So does a message that cannot be decoded (nested too deep, say) but
//     carries an id and "jsonrpc":"2.0": the request it answers fails at
//     once instead of waiting out its timeout, and a request of the server's
//     is refused to it.
//
// Lines that are not JSON-RPC (banners, logs) are skipped, as other hosts
// do; the last few since the server's last message are kept, cut and
// without control characters, for [Conn.Explain] to quote, as are the last
// lines of its stderr, which goes to [Command.Stderr] besides (nil
// discards it). A server that writes over 1000 lines or 1 MiB of them
// before its first message fails the connection at once: no time is
// involved, so a slow server is never cut short, while one that only
// prints need not wait out a connect deadline.
//
// Every write to the server can be abandoned: when its context ends or the
// connection closes, even with the server no longer reading its stdin and
// the pipe full (go-sdk's writes block until the server reads). A line
// abandoned part-way would corrupt the stream, so the connection then fails
// and says why; [Conn.Explain] adds to an error what the connection knows
// of the server's failure.
//
// It also bounds the SEP-2575 "server/discover" probe that go-sdk's client
// sends first: many servers in the wild neither answer nor reject unknown
// methods, and go-sdk would wait for the caller's whole connect timeout
// before falling back to "initialize". The connection writes a ping after
// the probe; once the server has answered the ping (it reads its stdin),
// and [Command.ProbeTimeout] more has passed without an answer to the
// probe, the connection answers the probe itself with "method not found",
// which makes go-sdk fall back at once. The bound counts from the ping's
// answer, not from the start, so that a server slow to start (an npx
// package on a loaded machine) is not spoken to in an older protocol for
// it; a server that answers no ping either is given ten times the bound.
//
// Inbound messages are checked by one validating pass and their envelopes
// read by hand (internal/wire), rather than by jsonrpc.DecodeMessage, which
// allocates a fresh decoder of about 64 KiB per message.
//
// One goroutine at a time reads the server's stdout: the connection's own
// reader, or, on Linux, a caller awaiting the answer to a request it wrote
// ([Conn.Await]), which reads for itself for up to 2 ms while no other
// goroutine reads. The answer then reaches its caller with no goroutine
// woken for it, which was a third of a quick call's time on a machine of
// two cores. While callers keep awaiting answers one at a time the reader
// rests, and takes its turn back when a request of go-sdk's is written, as
// the connection closes or the server exits, or once no answer was awaited
// for 1 ms: what the server says between calls waits 2 ms at most.
// Many calls awaited at once are read by the reader, as before.
//
// Package sdkfix lists these go-sdk behaviours with the others mcpbridge
// works around, and its tests fail when go-sdk changes one of them.
//
// Options: a [Command] is data. Zero in any of its fields is the default; a
// negative MaxLineLength or ProbeTimeout means no bound, and a negative
// StopTimeout, which keeps a server from holding Close, is refused.
package stdio
