// Package mcpclient is the client core behind package mcptool: one MCP
// server's connection, discovery, calls, results, reconnection, tasks and
// the host's answers (elicitation, sampling, roots). Package mcptool is its
// facade for agent authors, and its doc says what a provider promises; the
// catalog (internal/catalog), the gateway and the command line use this
// package directly, for what an agent author does not need:
//
//   - functional options ([Option]) for every setting, including those no
//     facade field gives: [WithoutDiscovery], [WithAllowedTools] (which
//     warns of a name the server does not list), [WithTransport];
//   - a handler that neither resolves names nor checks arguments, for a
//     holder of tools that does both ([Provider.Relay]); raw calls relayed
//     byte for byte ([Provider.CallToolRaw]) and untyped requests
//     ([Provider.Request]); a listing refreshed on demand ([Provider.Refresh]);
//   - a gateway's client named for each call ([WithCaller]) with what the
//     server asks passed on to it ([WithRelay], [WithNotices]), a question in
//     a result returned to a client that answers in its next call
//     ([ErrInputRequired]), a task handed over ([HandedTask]) or asked
//     through ([AskingTask]);
//   - a task's course shown to the host as a call follows it
//     ([WithTaskStatus]).
//
// Where things live: the session and the handshake in session.go, the
// listing (every page within its bounds) in discovery.go, a tool call in
// call.go (its timeout, its one send, and each outcome: a result, one
// taken from the transport and decoded, a task followed or handed over, a
// URL elicitation first), the rule for sending a call again after a loss
// (only for a tool annotated read-only or idempotent) in resend.go,
// progress in progress.go, the rebuilding of a
// lost connection in supervisor.go, the result's conversion for a model in
// result.go, tasks in task*.go, the host's answers in hostio.go, elicit.go,
// sampling.go and roots.go, MCP Apps in apps.go, telemetry in telemetry.go.
// The values package mcptool exports (Command, HTTP, Options, Limits...)
// are its own, converted into this package's options there; a provider
// mcptool made takes more options before it connects ([Provider.Around]),
// which is how the catalog builds each server's provider as a user would.
//
// Every workaround of a go-sdk behaviour lives in internal/sdkfix, whose doc
// lists each with the test that fails when go-sdk changes it; the stdio
// launcher is internal/stdio.
package mcpclient
