package oauth

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// AnyIssuer, as [Options.Issuer], trusts whichever authorization server the
// MCP server's protected resource metadata names, as plain MCP discovery
// does: the MCP server then decides where a client secret or an assertion
// goes. It is for a host that cannot know its authorization server in
// advance; any other host should pin the issuer.
const AnyIssuer = "*"

// ErrUntrustedIssuer is wrapped by the *[Error] of a handler that refused
// the authorization server an MCP server's metadata named (see
// [Options.Issuer]). Nothing was sent to that server.
var ErrUntrustedIssuer = errors.New("untrusted authorization server")

// trust returns nil if credentials may go to the authorization server
// issuer, named by the metadata of the MCP server at serverURL: the pinned
// issuer, or without a pin one on the MCP server's own origin.
func (o *Options) trust(serverURL, issuer string) error {
	switch {
	case o.Issuer == AnyIssuer:
		return nil
	case o.Issuer != "":
		if sameIssuer(o.Issuer, issuer) {
			return nil
		}
		return fmt.Errorf("%w: the MCP server's metadata names %q, not the pinned issuer %s; nothing was sent to it",
			ErrUntrustedIssuer, issuer, o.Issuer)
	}
	server, err := url.Parse(serverURL)
	if err != nil {
		return fmt.Errorf("%w: MCP server URL: %v", ErrUntrustedIssuer, err)
	}
	if as, err := url.Parse(issuer); err == nil && as.Host != "" && origin(as) == origin(server) {
		return nil
	}
	return fmt.Errorf("%w: the MCP server's metadata names %q, which is not on the MCP server's origin %s; nothing was sent to it (pin it as the issuer to trust it)",
		ErrUntrustedIssuer, issuer, origin(server))
}

// trustEndpoint returns nil if credentials may go to the token endpoint
// the metadata of issuer names: one on the issuer's own origin, pinned or
// not, unless o trusts any issuer. A token request carries the client's
// secret or assertion, and the metadata of an unpinned issuer is the MCP
// server's word, so the check on the issuer would be worth nothing if the
// metadata could send the request elsewhere.
func (o *Options) trustEndpoint(issuer, endpoint string) error {
	if o.Issuer == AnyIssuer {
		return nil
	}
	return onOrigin(issuer, endpoint)
}

// onOrigin refuses a token endpoint that is not on its issuer's origin.
func onOrigin(issuer, endpoint string) error {
	iu, err := url.Parse(issuer)
	if err != nil {
		return fmt.Errorf("%w: issuer %q: %v", ErrUntrustedIssuer, issuer, err)
	}
	if eu, err := url.Parse(endpoint); err == nil && eu.Host != "" && origin(eu) == origin(iu) {
		return nil
	}
	return fmt.Errorf("%w: the metadata of %s names the token endpoint %q, which is not on the issuer's origin %s; nothing was sent to it",
		ErrUntrustedIssuer, issuer, endpoint, origin(iu))
}

// chooseIssuer returns the first of the authorization servers named by the
// metadata of the MCP server at serverURL that o trusts (RFC 9728 lets the
// client choose), or why the first is not trusted.
func (o *Options) chooseIssuer(serverURL string, named []string) (string, error) {
	for _, issuer := range named {
		if o.trust(serverURL, issuer) == nil {
			return issuer, nil
		}
	}
	return "", o.trust(serverURL, named[0])
}

// sameIssuer compares issuer identifiers as go-sdk does: a trailing slash
// does not count.
func sameIssuer(a, b string) bool {
	return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
}

// origin returns the scheme, host and port of u (RFC 6454), the port
// omitted when it is the scheme's default.
func origin(u *url.URL) string {
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if scheme == "https" && port == "443" || scheme == "http" && port == "80" {
		port = ""
	}
	if port != "" {
		host = net.JoinHostPort(host, port)
	} else if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return scheme + "://" + host
}

// noRedirects returns a copy of c that does not follow redirects, failing
// with a *redirectError instead. A token request carries the client's
// credentials in its body, which a client following a 307 or 308 would send
// again to wherever the answer points (Go drops only the Authorization
// header on the way to another host).
func noRedirects(c *http.Client) *http.Client {
	nc := *c
	nc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		return &redirectError{from: origin(via[0].URL), to: origin(req.URL)}
	}
	return &nc
}

// redirectError is a redirect that noRedirects did not follow.
type redirectError struct{ from, to string }

func (e *redirectError) Error() string {
	return fmt.Sprintf("%s redirected to %s: not followed, the request carries credentials", e.from, e.to)
}
