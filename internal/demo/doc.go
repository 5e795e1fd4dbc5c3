// Package demo is the MCP server bundled with mcpbridge: a small notes
// store built on the official go-sdk, its notes in memory or in a file
// ([WithNotesFile]; the command keeps them in [DefaultNotesFile], so that
// one command sees the notes another added). It is what the README's first
// command talks to, and what tests across the project use as a real server
// instead of mocks, so each tool is chosen to exercise one MCP feature:
//
//   - add_note, list_notes, search_notes, get_note and delete_note are plain
//     text tools with typed, described input schemas and annotations
//     (read-only, destructive, idempotent).
//   - get_note fails with isError for an unknown id, the way a tool error (as
//     opposed to a protocol error) should look.
//   - note_stats declares an outputSchema and returns structuredContent
//     alongside a text rendering.
//   - color_swatch returns image content: a PNG filled with one colour.
//   - slow_count takes a while, honours cancellation and sends progress
//     notifications when the caller asks for them.
//   - notes_board is an MCP App: its _meta.ui names an HTML interface,
//     ui://notes/board.html, that renders the notes as cards, and
//     board_refresh is a tool only that interface calls ("visibility":
//     ["app"]), which a host never offers a model.
//   - tag_report and broken_job run as tasks of the 2026-07-28 extension
//     io.modelcontextprotocol/tasks (SEP-2663), to a client that declares
//     it: tag_report asks for a tag it was not given (input_required,
//     answered with tasks/update) and completes with the notes carrying it;
//     broken_job fails with a JSON-RPC error. A task's course is a function
//     of time (a stage lasts 200 ms) and of what the client sent: no
//     goroutine runs it, and under testing/synctest it runs in fake time.
//     To any other client they answer at once, tag_report asking for its
//     tag as a multi-round-trip result.
//
// The server also has instructions for the model, a notes://all resource with
// every note as markdown and a notes://{id} resource template.
//
// [WithTracerProvider] makes a server trace what it receives, joining the
// caller's trace through the trace context in params._meta: it is how a
// test shows that mcpbridge's trace context reaches a server.
//
// [New] builds a server with its own empty store in memory; nothing is
// global, so tests can run many at once. [ServeStdio], [HTTPHandler] and
// [SSEHandler] put it on a transport, and [ServeIfChild] lets a test binary
// re-execute itself as a stdio server subprocess without a separate build.
//
// Options: functional options ([Option]), and zero is the default in each:
// no notes file keeps the notes in memory, no tracer provider traces
// nothing.
package demo
