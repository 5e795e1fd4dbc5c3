// Package sdkfix gathers what mcpbridge does because of how go-sdk
// (github.com/modelcontextprotocol/go-sdk) v1.8.0 behaves. Each entry below
// names the behaviour, what answers it, and the test (gosdk_*test.go) that
// holds the behaviour: when an upgrade of go-sdk changes it, that test
// fails, and its message says what may be deleted.
//
// Here:
//
//   - go-sdk decodes a listed tool's inputSchema and outputSchema into a
//     map, so their properties come out in name order; models fill
//     arguments in the order a server declared them. [Schemas] keeps them
//     as written (TestGoSDKSchemasLoseTheirOrder).
//   - go-sdk decodes an elicitation's requestedSchema into a map as well,
//     so a host would ask for the fields in name order. The connection
//     shows [Schemas] the forms it receives too, and [Schemas.Form] gives
//     one back as written (TestGoSDKFormsLoseTheirOrder).
//   - go-sdk decodes a tools/call result whole: one content part it cannot
//     decode (corrupt base64, an unknown type) fails the call and loses the
//     other parts, and a null result, or one without content, is taken for
//     an empty one. [Catch] keeps the raw result, [Shape] judges it and
//     [Salvage] keeps the parts that decode (TestGoSDKDecodesAResultWhole,
//     TestSalvageAgreesWithGoSDK, which holds Salvage to go-sdk's decoding
//     of each part). It decodes every result with a decoder of 32 KB,
//     twice, whatever the result's size, and re-encoded a result a relay
//     passes on: a [Catch] takes a plain result before go-sdk sees it
//     ([Catch.Taken]), go-sdk given an error in its place, and [Decode]
//     decodes it as go-sdk would, in proportion to its size
//     (TestGoSDKDecodesEveryResultAnew; TestDecodeAgreesWithGoSDK and
//     FuzzDecode hold Decode to go-sdk's decoding).
//   - go-sdk's Tool has no execution member and its ServerCapabilities no
//     tasks member, on which the experimental tasks of protocol 2025-11-25
//     ride; and it decodes the CreateTaskResult a task-augmented call
//     answers with as an empty result. [Schemas] keeps a listed tool's
//     execution and the handshake's capabilities as written, and a [Catch]
//     the raw result, in which mcptool finds the task
//     (TestGoSDKDropsTasks).
//   - go-sdk's client drops a notification of a method it does not know,
//     such as notifications/tasks/status (2025-11-25), before any
//     middleware sees it. [Unheard] is shown them
//     (TestGoSDKDropsTaskStatus).
//   - These need the raw messages, which go-sdk does not show. [Capture]
//     wraps the connection to read them, but only ours (internal/stdio's,
//     internal/streamable's) and go-sdk's stream connection (its
//     in-memory, io and command transports), which it knows by the name of
//     its unexported type (TestGoSDKStreamConnType): go-sdk calls an
//     unexported method on its streamable HTTP connection, which a wrapper
//     hides (TestGoSDKStreamableConnCannotBeWrapped). Under its legacy SSE
//     transport, [HTTPTap] reads the bodies instead.
//   - go-sdk's streamable HTTP client decodes every message it reads, and
//     the params of every request it sends once more, with a decoder of
//     32 KB whatever their size (TestGoSDKDecodesEveryResultAnew), and hands
//     a call's answer over through a goroutine of its own. mcpbridge speaks
//     streamable HTTP through internal/streamable instead, whose tests hold
//     its decoding and its headers to go-sdk's.
//   - go-sdk sends every request through one generic path: a reflective
//     encoding of its params (and of their _meta, made anew for each
//     request of 2026-07-28), its JSON-RPC layer's bookkeeping, and its
//     reading goroutine, woken to hand the answer to the caller. For a
//     tools/call that was most of what a call cost the client. A [Caller]
//     (the connection [Capture] wrapped) sends a request go-sdk does not
//     see and hands its answer straight back, on the goroutine that read
//     it where the connection is ours (over stdio on Linux, the caller's
//     own: stdio.Conn.Await); mcptool encodes the call itself
//     (TestCallerAnswersPastGoSDK; TestACallPastGoSDKCarriesGoSDKsMeta in
//     internal/mcpclient holds its _meta to go-sdk's).
//   - go-sdk numbers the requests it sends in its JSON-RPC layer, below
//     any middleware, and shows the number to no one; telemetry records it
//     (jsonrpc.request.id). A [Sent] in the request's context learns it
//     where [Capture] or [HTTPTap] sees the raw messages
//     (TestGoSDKHidesRequestIDs).
//   - go-sdk bounds no JSON body a server answers with, and its cap on an
//     event (MaxEventSize) ends the whole connection. [HTTPTap] bounds every
//     message and fails only the request it answers; go-sdk's cap is to be
//     turned off with MaxEventSize -1 (TestGoSDKEventCap).
//   - go-sdk's legacy SSE client ties its event stream to the context given
//     to Connect, so a connect deadline would end the connection. [Detach]
//     gives it a context of its own (TestGoSDKSSEStreamEndsWithTheConnectContext).
//   - go-sdk passes some failures on as text alone: a legacy SSE POST's
//     cause formatted with %v, a stream that ended without its call's
//     answer, a protocol version it does not speak and a message nested too
//     deep (of no type), and a request its transport refused under a
//     JSON-RPC code it does not export. [NetworkDown], [Says], [StreamLost],
//     [Malformed] and [Undelivered] read them
//     (TestGoSDKKeepsOnlyTheTextOfAFailure, TestGoSDKStreamLost,
//     TestGoSDKMalformed, TestGoSDKOwnCodes).
//   - go-sdk reports an HTTP status by its text alone (the code, a
//     Retry-After and what the body said are lost), and closes the
//     connection on a successful answer MCP does not use (a web page, JSON
//     that is no JSON-RPC message), so that the caller learns only that
//     the client is closing. [HTTPTap] fails such a request with a
//     [Refusal], which go-sdk wraps with %w; for the legacy SSE
//     transport's POST of initialize, which go-sdk passes on in text
//     alone, [HTTPTap.Refused] finds it (TestGoSDKKeepsOnlyTheStatusText,
//     TestGoSDKWrapsRoundTripErrors).
//   - go-sdk takes a 404 in a session for the session's end
//     (mcp.ErrSessionMissing, on which mcptool opens a new one) only when
//     its body is no JSON-RPC error: one that is (the Python SDK's), it
//     reads as the request's own and keeps the session, which then fails
//     every request. [HTTPTap] drops such a body but for a "method not
//     found" (TestGoSDKKeepsASessionA404AnswersWithAnError).
//   - go-sdk's legacy SSE server handler checks each POSTed request against
//     the standard methods alone, and answers one for a method the server
//     added (the Skills extension's skills/list, say) with 400 Bad Request.
//     [SSEHandler] serves the transport for the demo server and hands every
//     message to the server's session (TestGoSDKSSERefusesCustomMethods).
//   - go-sdk's streamable HTTP handler refuses a request that reached a
//     loopback address under another host name (DNS rebinding), and a POST
//     whose Content-Type or Accept it does not take, by rules it does not
//     export. [Rebound] and [Accepts] are those rules, for the handlers
//     that answer before go-sdk's or in its place: the gateway's fast
//     path, [SSEHandler] (TestGoSDKRefusesReboundHosts,
//     TestGoSDKAcceptsHeaders).
//   - go-sdk logs what a server sent above debug level (a tool name it
//     leaves out of a listing, at error level). [DebugOnly] brings its
//     records down to debug (TestGoSDKLogsTheServerAtError).
//
// Elsewhere, as each must live with its user (the test is here all the
// same):
//
//   - internal/stdio replaces go-sdk's mcp.CommandTransport, which passes a
//     server this process's whole environment and leaves it in this
//     process's group (TestGoSDKCommandTransport); whose connection reads
//     nothing more after one line over its limit (16 MiB by default)
//     (TestGoSDKLineLimitEndsTheConnection); and which decodes each message
//     with a fresh decoder of tens of kilobytes (TestGoSDKDecodeAllocates).
//     Its connection also answers the server/discover probe itself when a
//     server ignores it, which go-sdk's client would wait for as long as the
//     caller's context lets it (TestGoSDKWaitsForTheProbe).
//   - mcptool/discovery.go reads a listing's ttlMs of 0 as no hint, since
//     go-sdk cannot tell it from none (TestGoSDKTTLZeroIsNone).
//   - mcptool/request.go registers each method it sends raw, as go-sdk sends
//     no method it was not told of, and sends the standard methods through
//     go-sdk's typed calls, as go-sdk will not be told of those
//     (TestGoSDKCustomMethods).
//   - mcptool/taskwire.go asks for a task (2025-11-25) with a tools/call
//     sent through CallCustomMethod with params of its own, as go-sdk's
//     CallToolParams has no task member (TestGoSDKTaskAugmentation); and
//     mcptool/http.go sets the Mcp-Name header of the tasks extension's
//     requests to the task's id, which go-sdk leaves unset
//     (TestGoSDKNamesNoTask).
//   - gateway/sessions.go cancels a session's calls, as its client would (a
//     notifications/cancelled handed to go-sdk's handler), when the client
//     goes away from the POST that carries them and before go-sdk's DELETE:
//     go-sdk's stateful handler lets the calls run on, and its DELETE waits
//     for them (TestGoSDKLetsASessionsCallsRunOn).
//   - mcptool/session.go closes a session's connection before the session,
//     as go-sdk's ClientSession.Close waits for the calls in flight, even
//     one whose write to a server that stopped reading is blocked
//     (TestGoSDKCloseWaitsForAWrite); it leaves closing the connection of a
//     failed connect to go-sdk, which does (TestGoSDKClosesAFailedConnection).
//   - gateway/subscriptions.go keeps which sessions subscribed to each
//     resource, as go-sdk's server calls the unsubscribe handler for any
//     session's resources/unsubscribe, one that never subscribed too
//     (TestGoSDKUnsubscribesAnySession).
//   - gateway/relay.go never sends resources/unsubscribe to a server of
//     2026-07-28 over stdio, where go-sdk's client makes each subscription
//     a subscriptions/listen of the one session, as go-sdk's server forgets
//     every list-change listen of a session when any of its listens ends
//     (TestGoSDKForgetsAListenWhenAnotherEnds).
//   - gateway/lanes.go hands go-sdk's streamable HTTP server a writer that
//     queues, bounded, for a goroutine of its own to write to the client,
//     as go-sdk writes a message to a client's stream on the goroutine that
//     sends it, which a client that does not read would hold
//     (TestGoSDKWritesToAStreamAsItSends).
//   - gateway/passon.go queues a server's notices, bounded, for a goroutine
//     of the gateway's to pass on, as go-sdk's client hands notifications
//     to their handler one at a time and queues the rest without bound
//     while it works (TestGoSDKQueuesNotificationsWithoutBound).
//
// Options: the types here are configured as data, by their fields, and zero
// is the default in each; a negative [HTTPTap.Limit] means no limit.
package sdkfix
