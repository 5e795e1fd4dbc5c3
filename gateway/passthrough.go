package gateway

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
)

// WithTokenPassthrough forwards the bearer token a client sent the gateway
// to the named servers, on the requests the gateway makes to them for that
// client (a call, a read, a prompt), in their Authorization header. By
// default, and for every server not named, a client's token goes no
// further than the gateway's own check.
//
// The MCP authorization spec forbids a server to pass a client's token on
// (token passthrough: the server downstream cannot tell the token was
// meant for the gateway, and the gateway no longer sees what it is used
// for): name a server only when it trusts the same authorization server
// and expects the user's own token. [Start] refuses a server not in the
// config, not reached over HTTP, or given credentials of its own (Auth, or
// an Authorization header). The gateway's own requests to a server
// (connecting, listing) carry no client's token.
func WithTokenPassthrough(servers ...string) Option {
	return func(o *options) { o.passthrough = append(o.passthrough, servers...) }
}

// checkPassthrough reports a server of [WithTokenPassthrough] that cannot
// take a client's token.
func (o *options) checkPassthrough(cfg *catalog.Config) error {
	for _, name := range o.passthrough {
		i := slices.IndexFunc(cfg.Servers, func(sc catalog.ServerConfig) bool { return sc.Name == name })
		if i < 0 {
			return fmt.Errorf("gateway: WithTokenPassthrough: no server is named %q", name)
		}
		sc := cfg.Servers[i]
		own := sc.Auth != nil
		for k := range sc.Headers {
			own = own || strings.EqualFold(k, "Authorization")
		}
		switch {
		case sc.URL == "":
			return fmt.Errorf("gateway: WithTokenPassthrough: server %q is not reached over HTTP", name)
		case own:
			return fmt.Errorf("gateway: WithTokenPassthrough: server %q has credentials of its own (auth or an Authorization header)", name)
		}
	}
	return nil
}

// passthroughOptions give a server of [WithTokenPassthrough] the HTTP
// client that forwards the calling client's token.
func (g *Gateway) passthroughOptions(sc catalog.ServerConfig) []mcpclient.Option {
	if !slices.Contains(g.o.passthrough, sc.Name) {
		return nil
	}
	return []mcpclient.Option{mcpclient.WithHTTPClient(&http.Client{Transport: passthrough{http.DefaultTransport}})}
}

// passthrough adds the token of the client a request is made for, if any,
// to a clone of the request.
type passthrough struct{ next http.RoundTripper }

func (p passthrough) RoundTrip(r *http.Request) (*http.Response, error) {
	if token := callerOf(r.Context()).token; token != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+token)
	}
	return p.next.RoundTrip(r)
}
