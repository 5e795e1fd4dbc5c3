package oauth

import (
	"net/http"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
)

// Transport returns base with what the requests to the MCP server need for
// the tokens of h, a handler of this package: with [Options.DPoP], a proof
// on each request and the token sent as "Authorization: DPoP". For any
// other handler, and without DPoP, it is base itself. Nil base means
// http.DefaultTransport.
//
// mcptool does this for the handler it is given. A host that sets h as the
// OAuthHandler of its own mcp.StreamableClientTransport sets the
// transport's HTTPClient to one whose Transport is Transport(h, base).
func Transport(h sdkauth.OAuthHandler, base http.RoundTripper) http.RoundTripper {
	if b, ok := h.(binder); ok {
		return b.BindTransport(base)
	}
	if base == nil {
		return http.DefaultTransport
	}
	return base
}

// binder is a handler whose tokens need more than the Authorization header
// on each request to the MCP server. Every handler of this package is one;
// mcptool, which does not import this package, finds the method by an
// interface of its own, and a handler that wraps one of ours (toolset's)
// forwards it.
type binder interface {
	BindTransport(base http.RoundTripper) http.RoundTripper
}
