package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
)

// statelessVersion is the first protocol revision without sessions.
const statelessVersion = "2026-07-28"

// Handler returns the gateway's HTTP endpoints: the MCP endpoint at /mcp
// (streamable HTTP), /healthz and /readyz.
//
// /mcp speaks both protocol generations. A request of 2026-07-28 or later
// (its Mcp-Protocol-Version header says so) is served statelessly by
// go-sdk's stateless handler: nothing is kept for the client between
// requests, so any replica of the gateway answers any request. An older
// client's initialize opens a session (Mcp-Session-Id), kept by the replica
// that made it. ?disclosure=1 serves the client find_tools and call_tool in
// place of the catalog ([Options] Disclosure does it for every client).
//
// Before any of that, a request's Origin and Host are checked against DNS
// rebinding ([Options] AllowedOrigins, AllowedHosts) and, when clients
// have tokens or OAuth is set, its bearer token: a refusal is 403 or 401, and the
// token is never passed on. Then the bounds of [Limits] that a handler can
// keep: a POST's body is read within BodyRead (a deadline the handler sets
// on the connection) and the bytes held, its JSON checked against
// RequestDepth and RequestValues and counted against its client's rate
// limit, all before anything decodes it; sessions, and requests being
// served, are counted and capped; a session idle for SessionIdle is
// closed, and its end, or its client going away from a call, cancels the
// calls on the servers. What a handler cannot see, the connections, is the
// server's to bound: serve Handler with an http.Server whose
// ReadHeaderTimeout and IdleTimeout are set (mcpbridge serve: 10 s and
// [Limits] ConnectionIdle) on a listener that bounds its connections
// (Connections).
//
// /healthz answers 200 while the process serves; /readyz answers 200 when
// every required server is ready and the gateway is not draining, and 503
// otherwise, both with a JSON body that says no more ([Gateway.StatusHandler]
// names the servers, for the operator), but, with [Options] Store, whether
// the store answers ("store": "up" or "unreachable": the gateway stays
// ready on its shares of the limits). Every POST is answered with its
// X-Request-Id, its own or one made for it, which its audit record holds. They need no token, but pass the
// same Origin and Host checks.
func (g *Gateway) Handler() http.Handler {
	// Each stream through a bounded queue of its own (lanes.go).
	stateless := g.lanes(mcp.NewStreamableHTTPHandler(g.pick, &mcp.StreamableHTTPOptions{
		Stateless:                    true,
		Logger:                       g.sdkLog(),
		PropagateRequestCancellation: true,
	}))
	sessions := g.lanes(mcp.NewStreamableHTTPHandler(g.pick, &mcp.StreamableHTTPOptions{Logger: g.sdkLog(), SessionTimeout: g.lim.SessionIdle}))
	endpoint := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		new := r.Header.Get("Mcp-Protocol-Version") >= statelessVersion
		switch {
		case r.Method == http.MethodPost:
			g.post(w, r, new, stateless, sessions)
		case new:
			stateless.ServeHTTP(w, r)
		default:
			if id := r.Header.Get("Mcp-Session-Id"); r.Method == http.MethodDelete && id != "" {
				// go-sdk's DELETE waits for the session's calls: they
				// are cancelled first.
				cancelCalls(r, sessions, g.sessions.inFlight(id), "the client ended its session")
			}
			sessions.ServeHTTP(w, r)
		}
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", g.checkOrigin(g.authenticate(endpoint)))
	g.protectedResource(mux)
	g.probes(mux, false) // health.go
	return mux
}

// post serves a POST to the MCP endpoint: its body read within the bounds
// ([Gateway.readBody]), its JSON within RequestDepth and RequestValues
// ([Gateway.readMessage]), each request it holds counted against its
// client's rate limit, all before anything decodes it; then it is served
// by the fast path (fast.go) or go-sdk's handler, stateless (new) or of a
// session. A session's requests whose client goes away before their
// answers are cancelled, as a stateless client's are.
func (g *Gateway) post(w http.ResponseWriter, r *http.Request, new bool, stateless, sessions http.Handler) {
	start := time.Now()
	info := auth.TokenInfoFromContext(r.Context())
	client := clientName(info)
	reqID := requestID(w, r) // audit.go
	body, held, f := g.readBody(w, r, client)
	if f != nil {
		g.logRequest(requestIDKey.With(r.Context(), reqID), "", "", client, start, false, f)
		f.write(w)
		return
	}
	defer g.bytes.give(client, held)
	msg, f := g.readMessage(body)
	if f != nil {
		g.logRequest(requestIDKey.With(r.Context(), reqID), "", "", client, start, false, f)
		f.write(w)
		return
	}
	if new {
		// A session's requests are handled in the context of the POST
		// that opened it, so only a stateless request's exchange is its
		// own: a session's request is counted by observe.
		var cw *counted
		var ex *exchange
		if r, cw, ex = g.audit.begin(r, w, reqID, body); cw != nil {
			w = cw
			defer g.audit.end(r.Context(), ex, cw)
		}
	}
	for _, c := range msg.calls {
		if handshake(c.method) {
			continue
		}
		if err := g.limits.take(client, entryName(info)); err != nil {
			g.logRequest(requestIDKey.With(r.Context(), reqID), c.method, callName(body, c.method), client, start, false, err)
			if msg.batch {
				(&refusal{status: http.StatusTooManyRequests, code: CodeRateLimited, msg: err.Error(), retry: true}).write(w)
			} else {
				writeAnswer(w, c.id, nil, err)
			}
			return
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if new {
		if !g.fast(w, r, body) {
			stateless.ServeHTTP(w, r)
		}
		return
	}
	id := r.Header.Get("Mcp-Session-Id")
	if id == "" {
		sessions.ServeHTTP(w, r)
		return
	}
	untrack := g.sessions.track(id, msg.calls)
	sessions.ServeHTTP(w, r)
	untrack()
	if r.Context().Err() != nil && len(msg.calls) > 0 {
		// The client went away before the answers: go-sdk would let
		// the calls run on.
		ids := make([]json.RawMessage, len(msg.calls))
		for i, c := range msg.calls {
			ids[i] = c.id
		}
		cancelCalls(r, sessions, ids, "the client went away")
	}
}

// pick is the server a request is served by: the catalog, or the
// disclosure tools.
func (g *Gateway) pick(r *http.Request) *mcp.Server {
	if g.o.disclosure || r.URL.Query().Get("disclosure") == "1" {
		return g.small
	}
	return g.full
}

// checkOrigin refuses a request from a browser on an origin not allowed,
// and one whose Host is not allowed, against DNS rebinding: a page on
// evil.example that resolves its name to this machine's address reaches
// the endpoint with Origin and Host of its own. go-sdk already refuses a
// non-loopback Host on a loopback connection.
func (g *Gateway) checkOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && !g.originAllowed(r, origin) {
			http.Error(w, fmt.Sprintf("Forbidden: origin %q is not allowed", origin), http.StatusForbidden)
			return
		}
		if len(g.o.hosts) > 0 && !sdkfix.HostAllowed(r.Host, g.o.hosts) {
			http.Error(w, fmt.Sprintf("Forbidden: host %q is not allowed", r.Host), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (g *Gateway) originAllowed(r *http.Request, origin string) bool {
	if slices.Contains(g.o.origins, origin) {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return local != nil && sdkfix.Loopback(local.String()) && sdkfix.Loopback(u.Host)
}
