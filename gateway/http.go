package gateway

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"

	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
// place of the catalog ([WithDisclosure] does it for every client).
//
// Before any of that, a request's Origin and Host are checked against DNS
// rebinding ([WithAllowedOrigins], [WithAllowedHosts]) and, with
// [WithBearerTokens], its bearer token: a refusal is 403 or 401, and the
// token is never passed on. /healthz answers 200 while the process serves;
// /readyz answers 200 when every required server is ready and the gateway
// is not draining, and 503 otherwise, both with a JSON body.
func (g *Gateway) Handler() http.Handler {
	stateless := mcp.NewStreamableHTTPHandler(g.pick, &mcp.StreamableHTTPOptions{
		Stateless:                    true,
		Logger:                       g.sdkLog(),
		PropagateRequestCancellation: true,
	})
	sessions := mcp.NewStreamableHTTPHandler(g.pick, &mcp.StreamableHTTPOptions{Logger: g.sdkLog()})
	laned, statelessLaned := g.lanes(sessions), g.lanes(stateless) // lanes.go
	var endpoint http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Protocol-Version") >= statelessVersion {
			if g.fast(w, r) { // fast.go
				return
			}
			statelessLaned.ServeHTTP(w, r)
			return
		}
		laned.ServeHTTP(w, r)
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", g.checkOrigin(g.authenticate(endpoint)))
	g.protectedResource(mux)
	mux.HandleFunc("GET /healthz", g.healthz)
	mux.HandleFunc("GET /readyz", g.readyz)
	return mux
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
		if len(g.o.hosts) > 0 && !hostAllowed(r.Host, g.o.hosts) {
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

func hostAllowed(host string, allowed []string) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	return slices.Contains(allowed, host) || slices.Contains(allowed, name)
}

// IsLoopback reports whether the listen address addr (host:port) binds only
// the loopback interface: a host that is localhost or a loopback IP. An
// empty host (":8080") binds every interface, and is not.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	return err == nil && host != "" && sdkfix.Loopback(host)
}
