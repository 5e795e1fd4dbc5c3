package gateway

import (
	"fmt"
	"time"
)

// Limits bounds what the gateway holds for its clients: sessions,
// connections, calls and bytes in flight, queues, listings. Each field's zero
// value means its documented default; a negative value lifts a bound only
// where the field's doc says it may. Each replica holds them alone, but for
// the per-client bounds of sessions and calls, which with a shared store
// ([Options] Store) hold across the replicas.
//
// A client is named by its token ([Client] Token), or behind [OAuth] is
// a user of an app (UserClaim); the clients that present no token share
// the name "", and so share each bound "per client".
type Limits struct {
	// Sessions bounds the sessions (protocol 2025-11-25 and older) open at
	// once, and SessionsPerClient those of one client: an initialize past
	// either is refused with [CodeRateLimited], naming the bound. Default
	// 1000 and 100; negative, no bound. serve: --max-sessions,
	// --max-sessions-per-client; config "sessions", "sessionsPerClient".
	Sessions int
	// SessionsPerClient bounds the sessions of one client, as Sessions
	// bounds all.
	SessionsPerClient int
	// SessionIdle closes a session that has had no request in flight for
	// that long: its client's next request is answered 404, which tells it
	// to open a new one (an open GET stream alone does not keep a session:
	// a client that only listens pings). Default 30 minutes; negative,
	// never. serve: --session-idle; config "sessionIdle".
	SessionIdle time.Duration

	// Calls bounds the requests being served at once (every request, a
	// subscriptions/listen included for as long as it listens), and
	// CallsPerClient one client's. A request past either waits for a slot,
	// in its client's queue of up to CallQueue requests, while its client
	// waits; past the queue it is refused with [CodeRateLimited], naming
	// the bound. They bound the results in flight too: a request served
	// holds one result, of at most the servers' message bound (16 MiB over
	// stdio), in a few copies while it is written: size Calls to memory.
	// Default 256, 32 and 64; negative, no bound. serve: --max-calls,
	// --max-calls-per-client, --call-queue; config "calls",
	// "callsPerClient", "callQueue".
	Calls int
	// CallsPerClient bounds the requests of one client being served, as
	// Calls bounds all.
	CallsPerClient int
	// CallQueue bounds the requests of one client waiting for a slot.
	CallQueue int
	// ServerCalls bounds the requests in flight on one server, and shares
	// them fairly between the clients with requests for it: while n
	// clients have, each may have ServerCalls/n in flight (at least one),
	// and a request past it waits, the next slot going to the client with
	// the fewest. A server answers in turn on its one connection (a stdio
	// server's pipe), so a client's wait behind another's large answers is
	// bounded by the other's share, not by its calls' bound. Default 16;
	// negative, no bound. serve: --max-server-calls; config
	// "serverCalls".
	ServerCalls int

	// RequestBytes bounds the bytes of request bodies the gateway holds at
	// once, read and not yet answered, and RequestBytesPerClient one
	// client's; a body is counted as it arrives, and a request whose body
	// would pass a bound is refused (HTTP 503, or 429 for a client's own
	// bound, with Retry-After). One body is at most 4 MiB, go-sdk's bound.
	// Default 64 MiB and 16 MiB; negative, no bound. serve:
	// --max-request-bytes, --max-request-bytes-per-client; config
	// "requestBytes", "requestBytesPerClient".
	RequestBytes int64
	// RequestBytesPerClient bounds the bytes of one client's request
	// bodies held at once, as RequestBytes bounds all.
	RequestBytesPerClient int64
	// ResultBytes bounds the bytes of answers the gateway holds for its
	// clients, written to their streams and not yet taken by them (a
	// result of megabytes its client does not read), and
	// ResultBytesPerClient one client's; they are counted until written
	// or the client is gone. An answer that would pass a bound is refused
	// in its place with [CodeRateLimited], naming the bound, and so is a
	// client's request while its own are past it: a client that does not
	// read holds no more. Default 256 MiB and 32 MiB; negative, no bound.
	// serve: --max-result-bytes, --max-result-bytes-per-client; config
	// "resultBytes", "resultBytesPerClient".
	ResultBytes int64
	// ResultBytesPerClient bounds the bytes of one client's answers not yet
	// read, as ResultBytes bounds all.
	ResultBytesPerClient int64
	// RequestDepth and RequestValues bound a message's JSON before anything
	// decodes it: how deep its objects and arrays nest, and how many values
	// (objects, arrays, strings, numbers, literals) it holds in all, so
	// that the memory a request costs decoded (its arguments for the
	// schema check, its _meta in go-sdk) is in proportion to its bytes. A
	// message past either is refused as an invalid request (HTTP 400).
	// Default 64 and 65536; negative, no bound but go-sdk's (nesting of
	// 1000). serve: --max-request-depth, --max-request-values; config
	// "requestDepth", "requestValues".
	RequestDepth int
	// RequestValues bounds the values of a request's JSON, as
	// RequestDepth bounds its nesting.
	RequestValues int
	// BodyRead bounds the time a request's body takes to arrive, from the
	// end of its headers: a client that sends a byte now and then is cut
	// off. The handler sets it on the connection itself. Default 30
	// seconds; negative, no bound. serve: --body-read; config "bodyRead".
	BodyRead time.Duration

	// Connections bounds the HTTP connections open at once, and
	// ConnectionIdle closes a keep-alive connection idle that long. A
	// handler cannot see connections: these bound the server that serves
	// [Gateway.Handler], which mcpbridge serve builds (at the bound, the
	// connection idle longest, or waiting longest for its request, is
	// closed for a new one, and a connection that cannot be made room for
	// is answered 503); a program that serves Handler itself sets its
	// http.Server's IdleTimeout and ReadHeaderTimeout and bounds its
	// listener. Default 1024 and 2 minutes; negative, no bound. serve:
	// --max-connections, --connection-idle; config "connections",
	// "connectionIdle".
	Connections int
	// ConnectionIdle closes a keep-alive connection idle that long.
	ConnectionIdle time.Duration

	// ListingItems bounds one listing of a server (its tools, resources,
	// resource templates or prompts) in entries across all its pages, and
	// ListingBytes in their bytes: zero is 10 000 entries and 16 MiB
	// (a provider's [mcptool.Limits] ListedItems and ListedBytes). A listing past either fails naming the
	// server and the bound: a server whose tools pass it does not start.
	// Neither can be lifted: [Start] refuses a negative value. Flags
	// --max-listing-items and --max-listing-bytes, keys "listingItems"
	// and "listingBytes".
	ListingItems, ListingBytes int

	// ClientQueueBytes bounds what the gateway holds for one stream of a
	// client that does not read it (a session's event stream, the answer
	// to a request): a client whose stream holds more when another
	// message comes has fallen behind, and loses that stream, logged
	// (lanes.go). Default 1 MiB. serve: --client-queue-bytes; config
	// "clientQueueBytes".
	ClientQueueBytes int
	// ServerQueueBytes bounds what the gateway holds of one server's
	// notices (log messages, progress, resource updates) it has yet to
	// pass on to its clients: a notice that comes while it holds more is
	// dropped, and the drops are logged (passon.go). Default 4 MiB. serve:
	// --server-queue-bytes; config "serverQueueBytes".
	ServerQueueBytes int
	// Neither queue bound can be lifted: [Start] refuses a negative value.

	// StoreTimeout bounds each operation on the replicas' shared store
	// ([Options] Store): counting a request, a session or a call, renewing
	// them. One that passes it (or fails) marks the store down: the
	// per-client limits fall back to this replica's share until the store
	// answers a probe, and no request waits for it meanwhile. Default 100
	// milliseconds; it cannot be lifted ([Start] refuses a negative value).
	// serve: --store-timeout; config "storeTimeout".
	StoreTimeout time.Duration
}

// check refuses the bounds that cannot be, naming the field.
func (l Limits) check() error {
	for _, f := range []struct {
		name string
		n    int
	}{{"ListingItems", l.ListingItems}, {"ListingBytes", l.ListingBytes}, {"ClientQueueBytes", l.ClientQueueBytes}, {"ServerQueueBytes", l.ServerQueueBytes}} {
		if f.n < 0 {
			return fmt.Errorf("gateway: Limits.%s %d: negative, and this bound protects the gateway, so it cannot be lifted", f.name, f.n)
		}
	}
	if l.StoreTimeout < 0 {
		return fmt.Errorf("gateway: Limits.StoreTimeout %s: negative, and no request may wait on the store unbounded, so it cannot be lifted", l.StoreTimeout)
	}
	return nil
}

// defaultLimits is the [Limits] a field left zero takes its value from.
func defaultLimits() Limits {
	return Limits{
		Sessions:              1000,
		SessionsPerClient:     100,
		SessionIdle:           30 * time.Minute,
		Calls:                 256,
		CallsPerClient:        32,
		CallQueue:             64,
		ServerCalls:           16,
		RequestBytes:          64 << 20,
		RequestBytesPerClient: 16 << 20,
		ResultBytes:           256 << 20,
		ResultBytesPerClient:  32 << 20,
		RequestDepth:          64,
		RequestValues:         65536,
		BodyRead:              30 * time.Second,
		Connections:           1024,
		ConnectionIdle:        2 * time.Minute,
		ClientQueueBytes:      1 << 20,
		ServerQueueBytes:      4 << 20,
		StoreTimeout:          100 * time.Millisecond,
	}
}

// Resolved is l as the gateway applies it: each zero field its default
// (Limits{}.Resolved() is every default), and each negative one, a bound
// lifted, 0: the gateway reads 0 as no bound. A program serving
// [Gateway.Handler] reads Connections and ConnectionIdle here.
func (l Limits) Resolved() Limits {
	d := defaultLimits()
	pick(&l.Sessions, d.Sessions)
	pick(&l.SessionsPerClient, d.SessionsPerClient)
	pick(&l.SessionIdle, d.SessionIdle)
	pick(&l.Calls, d.Calls)
	pick(&l.CallsPerClient, d.CallsPerClient)
	pick(&l.CallQueue, d.CallQueue)
	pick(&l.ServerCalls, d.ServerCalls)
	pick(&l.RequestBytes, d.RequestBytes)
	pick(&l.RequestBytesPerClient, d.RequestBytesPerClient)
	pick(&l.ResultBytes, d.ResultBytes)
	pick(&l.ResultBytesPerClient, d.ResultBytesPerClient)
	pick(&l.RequestDepth, d.RequestDepth)
	pick(&l.RequestValues, d.RequestValues)
	pick(&l.BodyRead, d.BodyRead)
	pick(&l.Connections, d.Connections)
	pick(&l.ConnectionIdle, d.ConnectionIdle)
	pick(&l.ClientQueueBytes, d.ClientQueueBytes)
	pick(&l.ServerQueueBytes, d.ServerQueueBytes)
	pick(&l.StoreTimeout, d.StoreTimeout)
	return l
}

func pick[T int | int64 | time.Duration](v *T, def T) {
	switch {
	case *v == 0:
		*v = def
	case *v < 0:
		*v = 0
	}
}
