// Package mcptool makes one MCP (Model Context Protocol) server a set of
// tools for an agent: a [Provider] connects to the server, reached by URL
// ([FromURL]: streamable HTTP, or legacy SSE), started as a subprocess
// ([FromCommand]: stdio), or in this process ([FromServer]), lists its
// tools once, and hands them over as
// [tool.Definition] values plus one [tool.Handler] that runs the model's
// calls.
//
// It is the Go counterpart of the MCP tool providers of agent frameworks in
// other languages, with their behaviour and a few guarantees more:
//
//   - Connect is bounded by a deadline, and a half-made connection (a server
//     that exits during the handshake, say) is fully closed before the error
//     returns. Close stops a started server and every process it started,
//     also one that stopped reading its stdin, whose calls fail at their
//     timeout or context rather than hang.
//   - The tools are listed once, following every page within a bound; no call
//     ever lists them again. Their schemas are kept as the server wrote them,
//     the order of properties included (models fill arguments in that order),
//     where go-sdk alone would hand them over re-encoded in name order.
//     Resources, resource templates and prompts are listed when asked
//     ([Provider.Resources]), within the same bound, an entry the server
//     wrote as null left out.
//   - The handler serves the tools it offered and declines any other name
//     ([tool.UnservedError]), so it composes with local tools through
//     [tool.Compose]; the alias mcp__<server>__<tool> works everywhere a tool
//     name does. It checks a call's arguments against the tool's input
//     schema before sending it, with the validator and the words of
//     [tool.Func] and package toolset: a violation is a [tool.RefusedError]
//     the model can correct. [Provider.Relay] is the handler for a host
//     that gates names and checks arguments itself.
//   - Results become what a model can read (see [ToReply]): text, images a
//     vision model takes, and one-line notes for everything else; never
//     base64 noise. An image is measured before it is decoded
//     ([MaxImagePixels]: its pixels, and what its decoder would allocate,
//     within a budget the process's decoders share). One content part
//     that cannot be decoded (corrupt base64, an unknown type) becomes
//     such a note and the rest is kept; a result the protocol does not
//     allow as a whole (null, without content, nested too deep to decode)
//     fails the call at once with a [ProtocolError].
//   - Structured results are checked against the tool's output schema, whose
//     $ref never reaches the network; a check is bounded in time and memory,
//     and an output schema no check could finish on fails the tool's calls
//     with a [SchemaError] naming it ([schema.UnboundedError]).
//   - A lost connection can be rebuilt ([WithReconnect]): a tool call caught
//     by the loss (a stdio server that exited, an HTTP server that
//     restarted or cut the call's request) is sent again only for a tool
//     annotated read-only or idempotent, and otherwise fails saying its
//     outcome is unknown. The provider's [State] is readable and reported
//     ([WithStateChange]).
//   - A tool call's timeout ([WithCallTimeout]) restarts whenever the server
//     reports progress on it; when it passes, the call is cancelled on the
//     wire. A host that shows progress passes a function in the call's
//     context ([tool.WithProgress]), which each report reaches until the
//     call returns. notifications/tools/list_changed and a listing's ttlMs make the
//     provider list again ([Provider.Refresh], [WithToolsChanged]).
//   - MCP Apps (the io.modelcontextprotocol/ui extension): a tool an app
//     keeps for itself is never offered to a model, the host still calling
//     it for the app; a tool's interface is named by [tool.Definition.App]
//     and read, checked, with the CSP and permissions its frame asks for, by
//     [Provider.ReadApp]; [WithApps] declares that the host renders apps.
//   - A call the server runs as a task is still one call: the handler
//     follows the task (polling at the interval the server asks for),
//     answers what it asks of the user through the elicitation hook, and
//     returns its result, within the call timeout, which each change of
//     the task's status restarts; a host sees the changes with
//     [WithTaskStatus]. Ending the call's context cancels the task on the
//     server. Both generations of tasks are spoken, whichever the server
//     negotiates: the experimental tasks of protocol 2025-11-25 (a tool
//     whose execution.taskSupport is required is called as a task, one
//     that allows it only by [Provider.StartTask], any other never; the
//     server's status notifications are taken in as polls' answers) and
//     the 2026-07-28 extension io.modelcontextprotocol/tasks, which the
//     provider declares on every request (the server decides). A host that
//     wants more (a long job in a chat window) starts a [Task] with
//     [Provider.StartTask]: its id, its status, its result later, Cancel;
//     it outlives the call that started it, not Close.
//   - The host's side of the protocol is declared only when the host
//     gives it, so a server never asks what the host cannot answer:
//     elicitation ([WithElicitation]: a form of the specification's
//     restricted schema, checked before it is answered, or a URL the host
//     shows and never fetches), sampling ([WithSampling]: the host's
//     model, behind an approval hook and bounds on tokens and requests per
//     call, the server's prompt kept apart from the host's) and roots
//     ([WithRoots], [Provider.SetRoots]). A request that comes during a
//     call is answered for that call: by the elicitor its context carries
//     ([tool.WithElicitor]), within its bound of sampling requests. A
//     host that passes them on to an MCP client of its own (a gateway)
//     declares them with [WithRelay] and names the client of each call
//     ([WithCaller]); a question in the call's result is then returned to
//     a client that answers in its next call ([ErrInputRequired],
//     [ResultOnly]; a resources/read's and a prompts/get's alike), and a
//     task of the 2026-07-28 extension to a client that follows it itself
//     ([HandedTask]). The questions of such a task the provider follows
//     for a client that answers only in results are returned to it
//     ([AskingTask]; the task left waiting), and its next call answers
//     them and follows the task on ([Caller].Answering); a client that
//     did not declare what a question needs is told so
//     ([UnanswerableError]).
//   - Errors have types that say what went wrong and name the server:
//     [TransportError] (with whether a retry may help), [ProtocolError],
//     [ConfigError], [SchemaError], [TaskError] for a task cancelled,
//     [UnanswerableError] for a task's question its caller cannot answer,
//     and [tool.FailedError] for a tool that ran and failed. An HTTP answer
//     that is no MCP message (a 503 from a load balancer, a web page where
//     the endpoint was to be) is a TransportError of an [HTTPError], which
//     names the status, and for a body MCP does not use its Content-Type,
//     with a hint where one helps: 408, 429 and 503 are retryable, as are
//     502 and 504 but on a tools/call, whose outcome they leave unknown;
//     the rest are fatal.
//
// The server is untrusted: descriptions are cut to a maximum length, nothing
// it sends is logged above debug level, and a stdio server gets a minimal
// environment plus only what [WithEnv] adds. Every message it sends is
// bounded ([WithMaxMessageSize]) over every transport: one over the limit
// fails the request it answers and the connection goes on. Over HTTP,
// requests go only to the origin of its URL: a redirect or a legacy SSE
// endpoint elsewhere is refused, so headers, tokens and arguments never
// reach an origin the host did not configure. A URL in an error or a log
// line shows only its scheme and host.
//
// Telemetry: every request and notification the provider sends is an
// OpenTelemetry client span as the MCP semantic conventions (version
// 1.41.1) describe it, named "tools/call get_weather", with the method, the
// tool, the protocol version, the session, the JSON-RPC id, where the
// server is and, for a failure, error.type ("tool_error" for a result
// marked isError); its trace context travels to the server in
// params._meta (traceparent, tracestate, baggage), as the 2026-07-28
// revision specifies, so that a traced server joins the trace. Around them
// are the spans of what the provider adds: "connect {server}" (with
// "start", the handshake and the listing in it), "reconnect {server}",
// "resend {tool}", "validate_arguments {tool}" for a call refused
// before it was sent, and "elicit {server}" and "sample {server}" for the
// host answering the server's requests, inside the call they came during. The metrics are mcp.client.operation.duration,
// mcp.client.session.duration and the counts of reconnections, resends and
// refusals. Arguments and results are recorded only with
// [WithCallContent]. The providers are OpenTelemetry's global ones unless
// [WithTracerProvider] and [WithMeterProvider] say otherwise; with no SDK
// installed the instrumentation costs a few no-op calls, and with no-op
// providers given for both, nothing. Log records made during a call carry
// its trace_id and span_id.
//
// Options: a Provider is configured with functional options ([Option]), and
// zero is the default in every one of them and in every field of
// [Reconnect] and [Sampling]; a nil provider of telemetry is the global
// one. A negative timeout means no bound but the caller's context; a
// negative size or count, a bound that protects the host from the server
// (pages, description length, message size, sampling's tokens and
// requests), is refused at Connect with a [ConfigError] naming it.
//
// Where go-sdk's behaviour needs working around (schemas decoded out of
// order, results decoded whole, errors kept as text), the workaround lives
// in internal/sdkfix, whose doc lists each with the go-sdk behaviour it
// answers and the test that fails when go-sdk changes it.
package mcpclient
