package gateway

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
)

// checkPassthrough reports a server of [Options] Passthrough that cannot
// take a client's token.
func (o *options) checkPassthrough(cfg *config.Config) error {
	for _, name := range o.passthrough {
		i := slices.IndexFunc(cfg.Servers, func(sc config.Server) bool { return sc.Name == name })
		if i < 0 {
			return fmt.Errorf("gateway: Passthrough: no server is named %q", name)
		}
		sc := cfg.Servers[i]
		own := sc.Auth != nil
		for k := range sc.Headers {
			own = own || strings.EqualFold(k, "Authorization")
		}
		switch {
		case sc.URL == "":
			return fmt.Errorf("gateway: Passthrough: server %q is not reached over HTTP", name)
		case own:
			return fmt.Errorf("gateway: Passthrough: server %q has credentials of its own (auth or an Authorization header)", name)
		}
	}
	return nil
}

// passthroughOptions give a server of [Options] Passthrough the HTTP
// client that forwards the calling client's token.
func (g *Gateway) passthroughOptions(sc config.Server) []mcpclient.Option {
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
