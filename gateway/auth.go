package gateway

import (
	"cmp"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/ctxkey"
	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// OAuth makes the gateway's endpoint an OAuth 2.1 resource server, as the
// MCP authorization spec (2025-11-25 and 2026-07-28) asks of a remote
// server: it serves its protected resource metadata (RFC 9728), answers a
// request without a valid token 401 with a WWW-Authenticate challenge that
// names that metadata, and takes only JWT access tokens (RFC 9068) that the
// issuer signed, that are in date, and whose audience is the gateway
// (RFC 8707). Set it in [Options].
type OAuth struct {
	// Issuer is the authorization server's issuer identifier, which a
	// token's iss must equal exactly. Its keys are found through its
	// metadata (RFC 8414, or OpenID Connect discovery): https, or http on
	// loopback. Required.
	Issuer string
	// Resource is the gateway's canonical URL as its clients reach it, its
	// MCP endpoint (https://gateway.example/mcp): the resource of its
	// metadata, and what a token's aud must name (a trailing slash aside).
	// Required: a gateway behind a load balancer cannot know it by itself.
	Resource string
	// Scopes are required of every token: one without them all is answered
	// 403 insufficient_scope. They are the metadata's scopes_supported and
	// the scope of every challenge. None, the default, requires none.
	Scopes []string
	// UserClaim names the claim that says who the token's user is, for an
	// issuer whose sub is not the user's stable id: a client is the user
	// of an app, the claim's value with the token's client_id (else azp),
	// so that each user has a lane, sessions and limits of their own.
	// Empty, the default, is "sub" (a token without one is its app's own);
	// a token without the claim named otherwise is refused. serve:
	// --oauth-user-claim; config "oauth": {"userClaim"}.
	UserClaim string
	// JWKSURL is where the issuer's keys are, for an issuer whose metadata
	// cannot be read (one that does not list PKCE, say). Empty, the
	// default, takes the jwks_uri of its metadata.
	JWKSURL string
	// HTTPClient fetches the issuer's metadata and keys. Nil means
	// [http.DefaultClient].
	HTTPClient *http.Client
}

// check reports what is wrong with o, naming the setting.
func (o *OAuth) check() error {
	if o.Issuer == "" {
		return errors.New("gateway: OAuth.Issuer is required")
	}
	if _, err := url.Parse(o.Issuer); err != nil {
		return fmt.Errorf("gateway: OAuth.Issuer: %w", err)
	}
	u, err := url.Parse(o.Resource)
	switch {
	case o.Resource == "":
		return errors.New("gateway: OAuth.Resource is required: the gateway's URL as its clients reach it")
	case err != nil:
		return fmt.Errorf("gateway: OAuth.Resource: %w", err)
	case u.Scheme != "https" && !(u.Scheme == "http" && sdkfix.Loopback(u.Host)), u.Host == "", u.Fragment != "":
		return fmt.Errorf("gateway: OAuth.Resource %q: want an absolute https URL without a fragment (http only on loopback)", o.Resource)
	}
	return nil
}

// metadataPaths are the paths of the protected resource metadata (RFC 9728
// section 3.1): the resource's path after the well-known prefix and, for
// clients that look only there, the prefix alone.
func (o *OAuth) metadataPaths() []string {
	const wellKnown = "/.well-known/oauth-protected-resource"
	u, _ := url.Parse(o.Resource) // checked
	if p := strings.TrimSuffix(u.Path, "/"); p != "" {
		return []string{wellKnown + p, wellKnown}
	}
	return []string{wellKnown}
}

// metadataURL is the URL of the metadata a challenge names: built from the
// configured resource, never from the request's Host, which a client
// chooses.
func (o *OAuth) metadataURL() string {
	u, _ := url.Parse(o.Resource)
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: o.metadataPaths()[0]}).String()
}

// protectedResource serves the gateway's protected resource metadata at its
// well-known paths, when it is an OAuth resource server.
func (g *Gateway) protectedResource(mux *http.ServeMux) {
	o := g.o.oauth
	if o == nil {
		return
	}
	h := auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               o.Resource,
		AuthorizationServers:   []string{o.Issuer},
		ScopesSupported:        o.Scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           implementation.Title,
	})
	for _, p := range o.metadataPaths() {
		mux.Handle(p, h)
	}
}

// verified carries a token checked by [Gateway.authenticate] to go-sdk's
// RequireBearerToken, the only way for it to reach the MCP handlers
// (mcp.RequestExtra.TokenInfo).
var verified = ctxkey.New[*auth.TokenInfo]("gateway verified token")

// authenticate guards the MCP endpoint when the gateway takes tokens: a
// client's bearer token ([Client] Token), or a JWT access token of the
// [OAuth] issuer. What it answers follows RFC 6750 section 3, as the
// MCP authorization spec asks: 401 with a challenge (its error
// invalid_token for a token refused) naming the resource metadata and the
// scopes, 403 insufficient_scope for a token without a required scope, and
// 503 when the issuer's keys cannot be had. The token goes no further than
// this check, unless [Options] Passthrough names a server.
func (g *Gateway) authenticate(next http.Handler) http.Handler {
	if len(g.o.tokens) == 0 && g.o.oauth == nil {
		return next
	}
	inner := auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		return verified.Value(ctx), nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true, ClockSkew: leeway})(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := bearerToken(r)
		if !ok {
			g.challenge(w, http.StatusUnauthorized, "", "")
			return
		}
		info, err := g.verify(r.Context(), token)
		var refused *tokenError
		switch {
		case errors.As(err, &refused):
			g.challenge(w, http.StatusUnauthorized, "invalid_token", refused.why)
			return
		case err != nil:
			if r.Context().Err() == nil { // not a client that hung up waiting
				g.log.Warn("gateway: tokens cannot be checked", "err", err)
			}
			http.Error(w, "Service Unavailable: the authorization server's keys cannot be had", http.StatusServiceUnavailable)
			return
		}
		if missing := g.missingScopes(info); len(missing) > 0 {
			g.challenge(w, http.StatusForbidden, "insufficient_scope", "the token lacks the scope "+strings.Join(missing, " "))
			return
		}
		if len(g.o.passthrough) > 0 {
			info.Extra = maps.Clone(info.Extra)
			if info.Extra == nil {
				info.Extra = map[string]any{}
			}
			info.Extra[passthroughKey] = token
		}
		inner.ServeHTTP(w, r.WithContext(verified.With(r.Context(), info)))
	})
}

// bearerToken returns the token of r's Authorization header (RFC 6750
// section 2.1: the scheme in any case).
func bearerToken(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	return token, ok && strings.EqualFold(scheme, "Bearer") && token != ""
}

// challenge refuses a request with status and a Bearer challenge: the
// error (none for a request without a token, as RFC 6750 section 3.1
// asks), the resource metadata and the scopes the endpoint needs.
func (g *Gateway) challenge(w http.ResponseWriter, status int, code, why string) {
	var params []string
	if code != "" {
		params = append(params, fmt.Sprintf("error=%q", code), fmt.Sprintf("error_description=%q", why))
	}
	if o := g.o.oauth; o != nil {
		params = append(params, fmt.Sprintf("resource_metadata=%q", o.metadataURL()))
		if len(o.Scopes) > 0 {
			params = append(params, fmt.Sprintf("scope=%q", strings.Join(o.Scopes, " ")))
		}
	}
	w.Header().Set("WWW-Authenticate", strings.TrimSpace("Bearer "+strings.Join(params, ", ")))
	http.Error(w, cmp.Or(why, "a bearer token is required"), status)
}

// verify checks a token: first against the bearer tokens, in constant time
// (the client is the token's name), then as a JWT of the issuer.
func (g *Gateway) verify(ctx context.Context, token string) (*auth.TokenInfo, error) {
	for name, want := range g.o.tokens {
		if subtle.ConstantTimeCompare([]byte(token), []byte(want)) == 1 {
			return &auth.TokenInfo{UserID: name}, nil
		}
	}
	if g.keys == nil {
		return nil, &tokenError{"unknown bearer token"}
	}
	return g.keys.verify(ctx, token)
}

// missingScopes are the required scopes info lacks. A bearer token of
// a [Client] has none and needs none: it names a client the
// operator configured.
func (g *Gateway) missingScopes(info *auth.TokenInfo) []string {
	if _, jwt := info.Extra[clientKey]; g.o.oauth == nil || !jwt {
		return nil
	}
	return slices.DeleteFunc(slices.Clone(g.o.oauth.Scopes), func(s string) bool { return slices.Contains(info.Scopes, s) })
}

// A tokenError is why a token was refused, in words fit for an
// error_description (RFC 6750 section 3: no quote, no backslash). It is
// an [auth.ErrInvalidToken].
type tokenError struct{ why string }

func (e *tokenError) Error() string        { return "invalid token: " + e.why }
func (e *tokenError) Is(target error) bool { return target == auth.ErrInvalidToken }
