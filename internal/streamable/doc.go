// Package streamable is the client side of MCP's streamable HTTP transport
// (2025-03-26 and later): an mcp.Transport under go-sdk's ClientSession,
// as internal/stdio's is for a subprocess, in place of go-sdk's
// StreamableClientTransport.
//
// It does what go-sdk's transport does that mcpbridge relies on: a POST a
// message, the session's Mcp-Session-Id, the Mcp-Protocol-Version header
// (and, from protocol 2026-07-28, Mcp-Method, Mcp-Name and the
// x-mcp-header arguments in Mcp-Param-* headers), the standalone stream
// before 2026-07-28 and its reconnection, a request's stream resumed
// from its last event (Last-Event-ID), a subscriptions/listen stream, the
// DELETE that ends the session on Close, a session the server forgot
// (404) read as mcp.ErrSessionMissing, an OAuth handler's token and its
// flow on a 401 or 403, and the same errors for the same failures (a
// request refused for a while fails alone, wrapping go-sdk's
// ErrRejected code).
//
// What it does otherwise: go-sdk decodes each message it reads with a
// decoder whose buffer is 32 KB, and the params of each request it sends
// once more to read their _meta, whatever their size; this transport
// reads the envelope of a message where it is written, the params and
// result kept as slices of the message (internal/wire, held to go-sdk's
// decoding by its TestDecodeAgreesWithGoSDK and FuzzDecode). And a request's
// answer is read by the Write that sent it, so that the caller's answer
// passes through no goroutine started for it.
//
// Bounds are the HTTP client's: mcpbridge's RoundTripper
// (internal/sdkfix.HTTPTap) bounds each message the server sends, and
// refuses an answer that is no MCP message.
package streamable
