// Package gateway serves the servers of a [config.Config] as one MCP
// server, to any MCP client: a desktop host that runs it over stdio
// ([Gateway.Run]), or any number of clients over streamable HTTP
// ([Gateway.Handler]) in both protocol generations, 2026-07-28 statelessly
// (N replicas behind any load balancer) and 2025-11-25 with sessions. It
// is what mcpbridge serve runs.
//
// [Start] connects the servers once, as a [toolset.Toolset] (vendor-safe
// names, argument checks, pinning, restart and idempotent resend,
// telemetry), and the clients share them. A client is served the tools
// ({prefix}_{tool}), resources, resource templates and prompts of every
// server, as the gateway's policy and its own allow; list changes,
// progress, cancellation and log messages reach the client they concern;
// what a server asks during a request (elicitation, sampling, a 2026-07-28
// input_required) goes to the client that made it, and is declined while
// several clients have requests open on that server; a task a server
// makes of a call is handed to a client that follows tasks, or followed by
// the gateway to its end.
//
// One [Options] value, nil for the defaults, says:
//
//   - who the clients are: each [Client] by name, with its bearer token, its
//     own allow and deny patterns and its [RateLimit], as the config file's
//     "clients" object says them; or the JWT access tokens of an [OAuth]
//     issuer, which name their client;
//   - what every client may reach: Policy, and Disclosure (find_tools and
//     call_tool in place of the catalog, which a client over HTTP may also
//     ask for with ?disclosure=1);
//   - the endpoint: AllowedOrigins and AllowedHosts against DNS rebinding,
//     and Passthrough, the servers a client's own token is sent to;
//   - the bounds of [Limits], each with a default: sessions, requests in
//     flight, request bytes and JSON, queues, listings;
//   - how the servers run (Toolset), the Logger and Telemetry,
//     DrainTimeout, and the TaskKeys replicas share;
//   - past one process: the Store the replicas share (Redis or Valkey),
//     which holds each client's limits across them and their task key,
//     and the [Audit] log of every request and refusal.
//
// Start refuses what it cannot take before any server starts, naming the
// field.
//
// What a client sends cannot reach past its own lane: no client stalls
// another (each stream is written through a bounded queue of its own, and
// a client that does not read loses its stream); a client's token is
// checked and dropped, and the servers' credentials never reach a client;
// what a client is not allowed is neither listed to it nor run; the id of
// a task handed to a client, and the state of a question it is asked, are
// bound to that client under the task keys; each bound is a replica's.
// SECURITY.md lists each promise with its test; docs/gateway.md is the
// operator's guide, and says which calls take the fast path (a 2026-07-28
// tools/call whose result crosses byte for byte) and what the gateway
// decodes otherwise.
//
// Operations: /healthz and /readyz on [Gateway.Handler] (ready: every
// required server up, not draining), [Gateway.StatusHandler] for the
// operator, [Gateway.Shutdown] to drain and [Gateway.Close] to stop.
package gateway
