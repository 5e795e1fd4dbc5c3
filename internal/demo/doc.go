// Package demo is the MCP server bundled with mcpbridge: a small in-memory
// notes store built on the official go-sdk. It is what the README's first
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
//
// The server also has instructions for the model, a notes://all resource with
// every note as markdown and a notes://{id} resource template.
//
// [Traced] makes a server trace what it receives, joining the caller's
// trace through the trace context in params._meta: it is how a test shows
// that mcpbridge's trace context reaches a server.
//
// [New] builds a server with its own empty store; nothing is global, so tests
// can run many at once. [ServeStdio], [HTTPHandler] and [SSEHandler] put it on
// a transport, and [ServeIfChild] lets a test binary re-execute itself as a
// stdio server subprocess without a separate build.
//
// Options: none but [Traced]'s provider, where nil means OpenTelemetry's
// global one, as everywhere in mcpbridge.
package demo
