// Package gateway serves the servers of a [toolset.Config] as one MCP
// server, to any MCP client: a desktop host that runs it over stdio
// ([Gateway.Run]), or any number of clients over streamable HTTP
// ([Gateway.Handler]), with everything the toolset adds in front of every
// server (parallel start, restart and idempotent resend, vendor-safe
// names, schema quarantine, argument checks, pinning, telemetry).
//
// What a client sees:
//
//   - Tools carry the toolset's names ({prefix}_{tool}), filters and
//     policy ([WithPolicy]): a tool the policy denies is not listed, and a
//     call of it is refused. A call's arguments are checked against the
//     tool's own schema before the server sees them; a refusal is a result
//     marked isError that says why, an unknown tool a JSON-RPC error. A
//     JSON-RPC error a server answers reaches the client as the server
//     wrote it: code, message and data.
//   - Resources and resource templates keep their URIs (a URI two servers
//     list is the first's, in config order) and prompts are served too,
//     their names namespaced as tools are. A policy ([WithPolicy],
//     [WithClientPolicy]) judges them as it judges tools, by those names
//     (reach.go): what a client is not allowed is neither listed to it nor
//     read, got, completed or subscribed to, and a server it is allowed
//     nothing of is invisible to it, its instructions too.
//   - notifications/tools/list_changed (and resources', prompts') from any
//     server reaches the connected clients, only when what the gateway
//     serves changed (it says that a listing changed, no more, to every
//     client, one that sees nothing of the change too). A server's log message during one client's request reaches
//     that client alone, none while several clients' requests are in
//     flight on the server, and one outside any request the clients allowed
//     something of the server (notices.go), each at the level it asked for.
//     A client's progress token gets the server's progress reports on its
//     call, and a client that cancels a call, or whose request ends
//     (2026-07-28), cancels it on the server. A subscription is its
//     session's own (subscriptions.go).
//   - No client stalls another: each stream of a client is written through
//     a queue of its own, and a client that does not read loses its stream
//     once the queue is full (lanes.go); a server's notices are passed on by
//     a goroutine of the server's, from a queue of their own, dropped past
//     its bound (passon.go). Both bounds are fields of [Limits].
//   - Both protocol generations over HTTP: 2026-07-28 statelessly (nothing
//     kept per client between requests, so N replicas sit behind any load
//     balancer, sharing a task key for the tasks they hand) and 2025-11-25
//     sessions. The servers are connected once
//     and shared by every client of a replica.
//   - What a server asks of the host during a call reaches the client that
//     made the call, and its answer the server (hostio.go). The servers are
//     told the gateway answers elicitation (form and URL) and sampling
//     (with tools); their requests go to the caller's client as they came.
//     A question a server of 2026-07-28 puts in its call's result
//     (input_required; a prompts/get's or a resources/read's alike) is
//     handed whole to a 2026-07-28 client, which answers in its next call
//     (inputResponses and requestState passed back to the server), so a
//     replica keeps nothing; to a 2025-11-25 session client the gateway
//     puts each question itself. A request a
//     server sends on its own (2025-11-25 servers, the questions of a
//     2025-11-25 task) goes to the session client whose call is in flight;
//     it fails when the caller is a stateless client, which can be asked
//     only in a result, or when calls of several clients are in flight on
//     that server, since nothing on the wire says whose it is: one
//     client's question is never shown to another.
//   - Roots are the gateway's own (a server's toolset.ServerConfig Roots,
//     or mcptool.WithRoots given through [WithToolsetOptions]; mcpbridge
//     serve's --root or a server's "roots"; none by default, as a server
//     may take them in place of the directories it was started with),
//     never a client's: a server keeps the roots it
//     learns for its session, which every client of the replica shares,
//     so one client's roots would reach the others' calls. The exception
//     is a 2026-07-28 client handed a server's questions whole, roots among
//     them, which it answers itself; a roots request alone in a result is
//     answered by go-sdk, with the gateway's.
//   - Tasks (tasks.go): a 2026-07-28 client that declares the tasks
//     extension (io.modelcontextprotocol/tasks) on its call is handed the
//     task a server of the extension makes of it, as the server created
//     it, and follows it itself: tasks/get, tasks/update (its answers to
//     the task's questions) and tasks/cancel are passed to the server and
//     its answers back, raw. The task id the client gets names the server
//     and the client with the server's id, bound to the three by a MAC
//     under the gateway's task key ([WithTaskKey]), so any replica that
//     holds the key routes them, keeping nothing; another client's use of
//     it, or of an id altered or made under another key, is refused as a
//     task not found, in the same words whatever was wrong. Without a key,
//     Start makes a random one: the ids of a gateway then do not survive
//     its restart, and replicas behind one load balancer must be given the
//     same key to route each other's. The key rotates without losing the
//     tasks in flight: previous keys given after it still verify ids. call_tool (disclosure) hands tasks
//     alike. Any other call of a tool the server
//     runs as a task (a 2025-11-25 client's, one without the extension, a
//     task of the 2025-11-25 generation) is followed to its end by the
//     gateway, its questions put to the caller as above, and answered as
//     one call. A 2026-07-28 client without the extension is asked a
//     task's questions in its call's result (taskstate.go): input_required,
//     the task's inputRequests, and a requestState that names the server,
//     the client, the tool called, the task and the questions answered,
//     sealed (AES-GCM, so the client can neither read nor alter it) under a
//     key derived from the task key, which rotates it as it rotates task
//     ids; its next call with its answers and that state, on
//     any replica, sends them to the task (tasks/update) and follows it on
//     within the call timeout, asking again if the task does. A state
//     that claims to be the gateway's and is altered, made under another
//     key, another client's or of a call of another tool is refused as
//     invalid params, in the same words, before anything reaches the
//     server; any other is the server's own and passes as before. A task
//     whose client never answers is left waiting, not cancelled: nothing
//     kept says that it was abandoned rather than answered late at another
//     replica, and it has its ttl on the server. A client that did not
//     declare what a question needs (elicitation, sampling) gets a result
//     marked isError naming the server, the tool and the question, and what
//     it would declare (that capability, or the tasks extension); its task
//     is cancelled.
//   - Progressive disclosure, for clients that cannot take a large catalog:
//     find_tools and call_tool in place of the catalog, for every client
//     ([WithDisclosure]) or for one that asks (?disclosure=1).
//
// What is decoded: a tools/call of a stateless client (2026-07-28) takes
// the fast path (fast.go), which reads the JSON-RPC envelope and the
// params' name, arguments and _meta, makes every check the slow path makes
// (draining, the client's rate limit, the gateway's and the client's
// policies, the toolset's argument check; the client's capabilities told
// to the server; the log record and the server span; an error's HTTP
// status), calls a server of 2026-07-28 reached over streamable HTTP raw
// ([toolset.Snapshot.CallRaw]) and writes its result back as the server
// wrote it, byte for byte ("resultType":"complete" added when it has
// none), as one event. The fast path leaves to go-sdk's server every
// request it does not serve whole, deciding before anything is sent: a
// 2025-11-25 session's, a progress token or a log level in _meta, answers
// to a server's questions (inputResponses, requestState), a call of the
// disclosure tools, a tool whose arguments go in headers (x-mcp-header),
// headers that disagree with the body, a member name written with an
// escape, anything malformed. A server it
// cannot call raw (stdio, in process, a 2025-11-25 server, OAuth, call
// content recorded in spans) is called as the slow path calls it, and its
// result encoded for the client; so is what a raw call answers in place of
// a result (a task the gateway follows, or hands to a client that follows
// tasks, under its own id; a question handed whole to the client),
// decoded. The raw result is not salvaged part by part as a
// decoded one is: a content part go-sdk could not decode reaches the
// client as the server wrote it. Elsewhere go-sdk's server encodes what
// handlers return and its client decodes what servers answer, so a result
// crosses the gateway as go-sdk's types (an [mcp.CallToolResult], decoded
// once and encoded once); the gateway itself decodes only the listings of
// resources, templates and prompts (to namespace them) and a prompt's
// result. go-sdk decodes a call's structured content into Go values, so on
// that path its keys may come out in another order. The stdio and HTTP
// paths are measured against direct calls by cmd/gatewaybench.
//
// Its own endpoint: over HTTP, a request with an Origin a browser sent is
// refused unless the origin is allowed ([WithAllowedOrigins]) or is a
// loopback origin on a loopback connection, and the Host header can be
// restricted ([WithAllowedHosts]), against DNS rebinding. For remote use it
// takes bearer tokens ([WithBearerTokens]) or is an OAuth 2.1 resource
// server ([WithOAuth]): RFC 9728 metadata, a 401 challenge naming it, the
// issuer's JWT access tokens (typ at+jwt where the issuer types them)
// checked against its keys (rotation followed, fetches bounded and run on
// the gateway's own context), their audience the gateway's own URL, required scopes
// (403 insufficient_scope). Each token names a client, which may have its
// own policy ([WithClientPolicy]: what it is not allowed is neither listed
// nor run) and rate limit ([WithRateLimit]: a token bucket, a refusal
// [CodeRateLimited] saying when to retry). A client's token is checked and
// dropped: nothing the client sends in headers reaches a server unless
// [WithTokenPassthrough] names it, and the credentials the config gives the
// servers (headers, environment, OAuth) never reach a client.
//
// Bounds ([Limits], [WithLimits]): what one client does cannot exhaust
// what the others need. Sessions are counted per client and in all, and
// close when idle; the requests being served take slots, per client and in
// all, and wait in their client's queue past them; request bodies are
// counted as they arrive, must arrive in time, and their JSON is checked
// for depth and values before anything decodes it; the rate limit is
// counted there too. A session's end, or its client going away from a call,
// cancels the call on its server. The connections are the server's to
// bound ([Gateway.Handler] says what to set; mcpbridge serve does). Each
// bound is one replica's: behind N replicas a client may take N times each.
//
// Operations: /healthz and /readyz ([Gateway.Ready]: every required server
// up, not draining), which name no server; [Gateway.StatusHandler] serves
// each server's state, for the operator; [Gateway.Shutdown] drains (requests in flight finish,
// new ones are refused with [ErrDraining], within [WithDrainTimeout]); one
// structured log record per request ([WithLogger]); a server span per
// request, in the trace the client's _meta carries, with the calls of the
// servers nested in it ([WithTracerProvider]).
//
// Options: a Gateway is long-lived and configured with functional options
// ([Option]); what the servers are is the [toolset.Config] given to
// [Start]. Zero means the default in every option; a negative
// [WithDrainTimeout] means no bound but Shutdown's context, a negative rate
// of [WithRateLimit] no limit, a negative field of [Limits] no bound, and a
// negative burst, or any key of
// [WithTaskKey] shorter than [TaskKeySize], is refused by Start, which
// names the option.
package gateway
