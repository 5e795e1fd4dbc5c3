package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/mcpbridge/mcpbridge/internal/ctxkey"
)

// An Authorizer obtains the user's authorization in the authorization code
// flow: it shows authURL to the user (a CLI opens a browser and listens on
// a loopback redirect URI; a web host redirects its user) and returns the
// URL the authorization server sent the user back to, the redirect URI
// with the code, state and iss in its query (at least its query: the
// request URL a redirect handler receives will do). The handler checks
// state and iss, and an error the redirect carries (RFC 6749 section
// 4.1.2.1) fails the flow as an *[Error] with its code.
type Authorizer func(ctx context.Context, authURL string) (redirect *url.URL, err error)

// callback is what the authorization server sent back to the redirect URI.
type callback struct {
	code, state string
	iss         string // the RFC 9207 iss parameter, if the server sent one
}

// parseCallback reads a callback from the redirect URI the authorization
// server sent the browser to. An error response (RFC 6749 section
// 4.1.2.1) becomes an *Error with its code.
func parseCallback(u *url.URL) (*callback, error) {
	if u == nil {
		return nil, &Error{Step: stepAuthorization, Err: errors.New("the Authorizer returned no redirect")}
	}
	q := u.Query()
	if code := q.Get("error"); code != "" {
		return nil, &Error{Step: stepAuthorization, Code: code, Description: q.Get("error_description")}
	}
	if q.Get("code") == "" {
		return nil, &Error{Step: stepAuthorization, Err: errors.New("redirect carries no code")}
	}
	return &callback{code: q.Get("code"), state: q.Get("state"), iss: q.Get("iss")}, nil
}

// AuthorizationCodeConfig configures [NewAuthorizationCode]. The client is
// identified, in go-sdk's order, by its client ID metadata document (if the
// authorization server supports them), else the pre-registered Client,
// else dynamic registration with Registration. At least one is required.
type AuthorizationCodeConfig struct {
	// Authorizer obtains the user's authorization. Required.
	Authorizer Authorizer
	// RedirectURL is where the authorization server sends the user back.
	// Required unless Registration lists redirect URIs (the first is used).
	RedirectURL string
	// ClientIDMetadataURL is an HTTPS URL of the client's metadata document
	// (SEP-991), used as the client ID where supported.
	ClientIDMetadataURL string
	// Client is a pre-registered client, if set: an ID with a Secret
	// (go-sdk picks client_secret_basic or client_secret_post from the
	// server's metadata, whatever the Method), or an ID alone, a public
	// client; go-sdk's flow takes no private_key_jwt. A client with a
	// secret needs [Options.Issuer], the authorization server that issued
	// it (SEP-2352), or [AnyIssuer].
	Client ClientAuth
	// Registration is the metadata for dynamic client registration (RFC 7591).
	Registration *oauthex.ClientRegistrationMetadata
	// RequestRefreshToken asks for offline_access when the server offers it.
	RequestRefreshToken bool
	// AcceptUnadvertisedIss accepts a matching iss the server does not
	// advertise (RFC 9207); a mismatching iss is always refused.
	AcceptUnadvertisedIss bool
	Options
}

// NewAuthorizationCode returns a handler for the OAuth 2.1 authorization
// code flow with PKCE, for a user who can visit a browser. It wraps go-sdk's
// auth.AuthorizationCodeHandler, which does discovery (RFC 9728, RFC 8414,
// OIDC), client ID metadata documents, dynamic registration, PKCE S256,
// the resource indicator, RFC 9207 issuer checks and step-up on 403
// insufficient_scope (asking for the union of granted and challenged
// scopes). This wrapper adds the pluggable [Authorizer], renewal with the
// refresh token before expiry, the [TokenStore], errors that name the
// failing step, and the pinned issuer ([Options.Issuer]).
//
// go-sdk's handler reads the metadata itself and has no hook between
// reading it and using the authorization server it names, so a pin is held
// three times over: before go-sdk runs, the wrapper discovers the
// authorization server itself and refuses another one with nothing sent to
// it; go-sdk refuses to use a pre-registered client with another server;
// and the [Authorizer] is not called with an authorization URL other than
// the pinned server's. A server whose metadata changes between the two
// reads can still have go-sdk fetch the other server's metadata and, for a
// client registered dynamically, register there; no secret, code or user
// goes there.
func NewAuthorizationCode(cfg AuthorizationCodeConfig) (sdkauth.OAuthHandler, error) {
	h, err := newAuthorizationCode(cfg)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// authorizationCode is the handler [NewAuthorizationCode] returns.
type authorizationCode struct {
	inner *sdkauth.AuthorizationCodeHandler
	opts  Options
	store TokenStore

	mu     sync.Mutex
	key    string       // store key of the server being authorized
	stepUp bool         // the current Authorize answers a 403
	stored *cachedToken // a token from the store, used until it expires
}

var _ sdkauth.OAuthHandler = (*authorizationCode)(nil)

func newAuthorizationCode(cfg AuthorizationCodeConfig) (*authorizationCode, error) {
	if cfg.Authorizer == nil {
		return nil, errors.New("oauth: authorization code: an Authorizer is required")
	}
	var clients map[string]ClientAuth
	if !cfg.Client.zero() {
		clients = map[string]ClientAuth{"Client": cfg.Client}
	}
	if err := cfg.setup(clients); err != nil {
		return nil, fmt.Errorf("oauth: authorization code: %w", err)
	}
	switch m := cfg.Client.method(); {
	case m == methodJWT:
		return nil, fmt.Errorf("oauth: authorization code: client authentication %s is not supported by go-sdk's flow", m)
	case cfg.Client.Secret != "" && cfg.Issuer == "":
		return nil, errors.New("oauth: authorization code: a client with a secret needs the Issuer that issued it (or AnyIssuer)")
	}
	h := &authorizationCode{opts: cfg.Options, store: cfg.store()}
	sc := &sdkauth.AuthorizationCodeHandlerConfig{
		RedirectURL:           cfg.RedirectURL,
		RequestRefreshToken:   cfg.RequestRefreshToken,
		AcceptUnadvertisedIss: cfg.AcceptUnadvertisedIss,
		Client:                tracedTokens(cfg.client()),
		AuthorizationCodeFetcher: func(ctx context.Context, args *sdkauth.AuthorizationArgs) (*sdkauth.AuthorizationResult, error) {
			if err := checkAuthorizationURL(ctx, args.URL); err != nil {
				return nil, err
			}
			redirect, err := cfg.Authorizer(ctx, args.URL)
			if err != nil {
				return nil, &Error{Step: stepAuthorization, Err: err}
			}
			cb, err := parseCallback(redirect)
			if err != nil {
				return nil, err
			}
			return &sdkauth.AuthorizationResult{Code: cb.code, State: cb.state, Iss: cb.iss}, nil
		},
		NewTokenSource: h.newTokenSource,
	}
	if cfg.ClientIDMetadataURL != "" {
		sc.ClientIDMetadataDocumentConfig = &sdkauth.ClientIDMetadataDocumentConfig{URL: cfg.ClientIDMetadataURL}
	}
	if !cfg.Client.zero() {
		pc := &oauthex.ClientCredentials{ClientID: cfg.Client.ID, Issuer: cfg.pin()}
		if cfg.Client.Secret != "" {
			pc.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: cfg.Client.Secret}
		}
		sc.PreregisteredClient = pc
	}
	if cfg.Registration != nil {
		sc.DynamicClientRegistrationConfig = &sdkauth.DynamicClientRegistrationConfig{Metadata: cfg.Registration}
	}
	if len(cfg.Scopes) > 0 {
		sc.ScopeFilter = func(discovered []string) []string {
			h.mu.Lock()
			defer h.mu.Unlock()
			if h.stepUp {
				return discovered
			}
			return cfg.Scopes
		}
	}
	inner, err := sdkauth.NewAuthorizationCodeHandler(sc)
	if err != nil {
		return nil, fmt.Errorf("oauth: authorization code: %w", err)
	}
	h.inner = inner
	return h, nil
}

// BindTransport implements [binder].
func (h *authorizationCode) BindTransport(base http.RoundTripper) http.RoundTripper {
	return h.opts.bindTransport(base)
}

// TokenSource implements go-sdk's auth.OAuthHandler.
func (h *authorizationCode) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	stored := h.stored
	h.mu.Unlock()
	if stored != nil {
		return stored, nil
	}
	return h.inner.TokenSource(ctx)
}

// Authorize implements go-sdk's auth.OAuthHandler. A usable token in the
// [TokenStore] for this server is used without asking the user.
func (h *authorizationCode) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	key := "authorization_code " + serverKey(req.URL)
	h.mu.Lock()
	h.key, h.stepUp = key, resp.StatusCode == http.StatusForbidden
	h.stored = nil
	h.mu.Unlock()
	if resp.StatusCode == http.StatusUnauthorized {
		if tok, _ := h.store.Get(ctx, key); h.opts.usable(tok, bearerToken(req)) {
			resp.Body.Close()
			c := &cachedToken{skew: h.opts.skew(), renew: func(*oauth2.Token) (*oauth2.Token, error) {
				// Without the token endpoint a stored token cannot be refreshed:
				// let the transport send no token, so that the 401 reruns the flow.
				return nil, &oauth2.RetrieveError{ErrorCode: "invalid_grant"}
			}}
			c.set(tok)
			h.mu.Lock()
			h.stored = c
			h.mu.Unlock()
			return nil
		}
	}
	if pin := h.opts.pin(); pin != "" {
		// Refuse another authorization server before go-sdk sends it anything.
		ch, err := parseChallenge(resp)
		if err == nil && (resp.StatusCode == http.StatusUnauthorized || ch.errorCode == "insufficient_scope") {
			info, err := discover(ctx, &h.opts, req.URL.String(), ch)
			if err != nil {
				resp.Body.Close()
				return classifySDKError(err)
			}
			ctx = authorizationEndpointKey.With(ctx, info.asm.AuthorizationEndpoint)
		}
	}
	if err := h.inner.Authorize(ctx, req, resp); err != nil {
		return classifySDKError(err)
	}
	return nil
}

// authorizationEndpointKey is the context key of the pinned authorization
// server's authorization endpoint during an Authorize.
var authorizationEndpointKey = ctxkey.New[string]("oauth authorization endpoint")

// checkAuthorizationURL refuses an authorization URL that does not lead to
// the endpoint ctx holds, if it holds one: go-sdk has read metadata other
// than the pinned server's.
func checkAuthorizationURL(ctx context.Context, authURL string) error {
	want := authorizationEndpointKey.Value(ctx)
	if want == "" {
		return nil
	}
	got, err := url.Parse(authURL)
	if err != nil {
		return &Error{Step: stepAuthorization, Err: fmt.Errorf("authorization URL: %v", err)}
	}
	if w, err := url.Parse(want); err == nil && origin(got) == origin(w) && got.Path == w.Path {
		return nil
	}
	return &Error{Step: stepAuthorization, Err: fmt.Errorf("%w: the authorization URL leads to %s%s, not to the pinned issuer's endpoint %s; the user was not sent there",
		ErrUntrustedIssuer, origin(got), got.Path, want)}
}

// newTokenSource is go-sdk's NewTokenSource hook: a cached source that
// refreshes with the refresh token before expiry and saves each token.
func (h *authorizationCode) newTokenSource(ctx context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
	h.mu.Lock()
	key := h.key
	h.mu.Unlock()
	c := &cachedToken{skew: h.opts.skew()}
	c.set(tok)
	c.renew = func(old *oauth2.Token) (*oauth2.Token, error) {
		if old == nil || old.RefreshToken == "" {
			return nil, &oauth2.RetrieveError{ErrorCode: "invalid_grant", ErrorDescription: "token expired and there is no refresh token"}
		}
		t, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: old.RefreshToken}).Token()
		if err != nil {
			var re *oauth2.RetrieveError
			if errors.As(err, &re) && re.ErrorCode != "" {
				return nil, &Error{Mechanism: "authorization code", Step: stepRefresh, Code: re.ErrorCode, Description: re.ErrorDescription,
					Err: &oauth2.RetrieveError{ErrorCode: re.ErrorCode, ErrorDescription: re.ErrorDescription}}
			}
			return nil, classifySDKError(err)
		}
		return t, nil
	}
	c.saved = func(t *oauth2.Token) { _ = h.store.Put(context.Background(), key, t) }
	_ = h.store.Put(ctx, key, tok)
	return c, nil
}

// classifySDKError turns an error of go-sdk's authorization code handler
// into an *Error naming the step, dropping any raw response body.
func classifySDKError(err error) error {
	var e *Error
	if errors.As(err, &e) {
		if e.Mechanism == "" {
			e.Mechanism = "authorization code"
		}
		return e
	}
	out := &Error{Mechanism: "authorization code", Err: err}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		out.Step, out.Code, out.Description, out.Err = stepTokenRequest, re.ErrorCode, re.ErrorDescription, nil
		if re.Response != nil {
			out.Status = re.Response.StatusCode
		}
		if re.ErrorCode != "" {
			out.Err = &oauth2.RetrieveError{ErrorCode: re.ErrorCode, ErrorDescription: re.ErrorDescription}
		}
		return out
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "register"):
		out.Step = stepRegistration
	case strings.Contains(msg, "metadata"), strings.Contains(msg, "WWW-Authenticate"), strings.Contains(msg, "PKCE"):
		out.Step = stepDiscovery
	case strings.Contains(msg, "token exchange"), strings.Contains(msg, "token source"):
		out.Step = stepTokenRequest
	default:
		out.Step = stepAuthorization // state, iss
	}
	return out
}

// serverKey names the server at u in the token store: its URL without user
// info, query or fragment.
func serverKey(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.Fragment = nil, "", ""
	return c.String()
}
