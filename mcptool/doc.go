// Package mcptool makes one MCP (Model Context Protocol) server a set of
// tools for an agent. A [Provider] reaches the server, started as a
// subprocess ([FromCommand]: stdio), by URL ([FromURL]: streamable HTTP or
// SSE), in this process ([FromServer]) or over a go-sdk transport
// ([FromTransport]); [Provider.Connect] makes the handshake and lists the
// tools once; the provider hands them over as [tool.Definition] values and
// one [tool.Handler] that runs the model's calls ([Provider.Offer] gives
// both as a [tool.Set], so a Provider is a [tool.Source] an agent takes).
// [Provider.CallTool] is the host's own call, returning the result as the
// server sent it.
//
// What it promises:
//
//   - Everything is bounded: Connect, each request and each call by a
//     timeout (a call's restarts while the server reports progress, and is
//     cancelled on the wire when it passes), each listing, description and
//     message (over stdio and HTTP) by a size ([Limits]). Close stops the
//     server and every process it started.
//   - Schemas are kept as the server wrote them. The handler checks a call's
//     arguments against the tool's input schema before anything is sent
//     ([tool.RefusedError]), checks structured results against the output
//     schema, takes the alias mcp__<server>__<tool>, and declines a name it
//     does not serve, so that it composes with local tools ([tool.Compose],
//     [tool.Join]).
//   - Results become what a model reads ([ToReply]): text, images measured
//     before they are decoded, a one-line note for the rest, never base64; a
//     tool that failed is a [tool.FailedError] the model reads.
//   - A lost connection is rebuilt when asked ([Reconnect]); a call caught
//     by the loss is sent again only for a tool annotated read-only or
//     idempotent. A call the server runs as a task is followed to its end.
//   - The host answers only what it declares: elicitation, sampling, roots
//     and MCP Apps are declared by the [Options] fields that answer them.
//   - The server is untrusted: a stdio server gets a minimal environment
//     plus [Command].Env; over HTTP, headers and tokens go only to the URL's
//     origin; nothing it sends is logged above debug level.
//   - Errors name the server and say what a failure means: [TransportError]
//     (its Timeout, and whether a retry may help), [HTTPError],
//     [ProtocolError], [ConfigError], [SchemaError], read through any
//     wrapping with [tool.Retryable], [tool.OutcomeUnknown] and [tool.Fatal].
//   - Every request is an OpenTelemetry span by the MCP semantic conventions,
//     its trace context sent to the server ([Telemetry]).
//
// Options: each constructor takes its transport's settings ([Command],
// [HTTP]) and one [*Options], whose nil or zero value is the defaults; a
// negative timeout is no bound, a negative size is refused at Connect.
//
// The Examples show each constructor, the handler and the host's own call,
// and the options at work: ExampleOptions_filter, ExampleOptions_onEvent,
// ExampleLimits, ExampleReconnect, ExampleOptions_elicitor, ExampleSampling,
// ExampleOptions_roots, ExampleProvider_ReadApp. Every server in them is a go-sdk
// server written inline, which a reader can copy.
package mcptool
