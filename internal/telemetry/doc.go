// Package telemetry is what mcpbridge's OpenTelemetry instrumentation
// shares: the names of the semantic conventions it follows, its own names,
// the instruments, and the rules every instrumented package applies alike
// (what error.type says, how recorded content is cut and scrubbed, how
// trace context travels in an MCP request's params._meta). Packages
// mcptool, toolset, agent, mcptool/oauth and the demo server use it; none
// names a convention by its own spelling.
//
// The conventions are OpenTelemetry's semantic conventions version 1.41.1
// ([SemConvVersion]): the MCP conventions (docs/gen-ai/mcp.md) for client
// spans and the mcp.client.* metrics, the GenAI span conventions
// (gen-ai-spans.md, gen-ai-agent-spans.md) for the agent loop. Both are in
// Development there: a later version may rename what this package names,
// and this package is where the change goes. The names come from the
// generated package go.opentelemetry.io/otel/semconv/v1.41.0 (1.41.1
// changed no convention, only the repository's policies).
//
// Only the OpenTelemetry API is used (go.opentelemetry.io/otel, /trace,
// /metric): a host that installs no SDK pays for no-op calls, and one that
// gives mcpbridge explicit no-op providers for both traces and metrics
// ([New] returns nil then) pays for nothing at all.
//
// error.type, which the conventions ask instrumentations to document, is
// one of:
//
//   - a JSON-RPC error code as a decimal string ("-32602"): the server's
//     error answer;
//   - "tool_error": a tools/call result with isError, or a tool that ran
//     and failed ([tool.FailedError]);
//   - "timeout": a deadline mcpbridge or the caller set passed;
//   - "canceled": the caller's context ended;
//   - "connection_lost": the connection to the server ended under a
//     request or a session;
//   - "refused": a call refused before it ran (arguments that break the
//     tool's schema, a policy);
//   - "unserved": a tool no handler serves;
//   - "step_limit": an agent's run reached its step limit;
//   - for a model turn, the vendor's error code, type or HTTP status; for
//     an OAuth token request, the OAuth error code or the HTTP status;
//   - else the Go type of the error as [semconv.ErrorType] names it
//     ("*mcptool.TransportError", "*llm.APIError"), fmt.Errorf's wrappers
//     unwrapped ([ErrorType]).
//
// mcpbridge's own spans, around what it adds to an MCP call, and its own
// metrics are named under "mcpbridge." (see names.go): connect and start of
// a connection, reconnect, resend, refusals (validate_arguments and
// check_policy spans, made only for a refusal), OAuth token requests, and
// the waiting on a task ([Telemetry.StartTaskWait], "await_task {tool}").
//
// Options: the one setting is data, the two providers given to [New]; a
// nil provider means OpenTelemetry's global one (a no-op until the host
// installs an SDK), and no state of this package's is global.
package telemetry
