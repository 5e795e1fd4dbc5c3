package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/oauth2"

	"github.com/mcpbridge/mcpbridge/internal/redact"
)

// grantFunc returns the token request that obtains a new token for the
// server info describes.
type grantFunc func(ctx context.Context, info *serverInfo, scopes []string) (url.Values, error)

// grantHandler is the [sdkauth.OAuthHandler] behind every non-interactive
// mechanism: on a 401/403 challenge it discovers the server's authorization
// server (or recalls it: see [known]), runs its grant and caches the token;
// later requests get the cached token, refreshed (with the refresh token if
// there is one, else by running the grant again) before it expires.
type grantHandler struct {
	mechanism string
	opts      Options
	store     TokenStore
	client    ClientAuth // authenticates refresh requests
	grant     grantFunc
	servers   known

	mu        sync.Mutex
	refused   *Error // the last refusal of the grant, held for refusalHold
	refusedAt time.Time
	granted   []string
	cache     *cachedToken
}

var _ sdkauth.OAuthHandler = (*grantHandler)(nil)

// newGrantHandler returns the handler of a mechanism whose client at the
// MCP server's authorization server is client; others are the other client
// authentications its grant uses, by their config fields.
func newGrantHandler(mechanism string, opts Options, client ClientAuth, grant grantFunc, others map[string]ClientAuth) (*grantHandler, error) {
	clients := map[string]ClientAuth{"Client": client}
	for field, c := range others {
		clients[field] = c
	}
	if err := opts.setup(clients); err != nil {
		return nil, fmt.Errorf("oauth: %s: %w", mechanism, err)
	}
	return &grantHandler{mechanism: mechanism, opts: opts, store: opts.store(), client: client, grant: grant}, nil
}

func (h *grantHandler) clientID() string { return h.client.ID }

// BindTransport implements [binder].
func (h *grantHandler) BindTransport(base http.RoundTripper) http.RoundTripper {
	return h.opts.bindTransport(base)
}

// TokenSource implements [sdkauth.OAuthHandler]. It returns nil until the
// first successful Authorize.
func (h *grantHandler) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cache == nil {
		return nil, nil
	}
	return h.cache, nil
}

// Authorize implements [sdkauth.OAuthHandler].
func (h *grantHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	defer io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	log := h.opts.logger().With("mechanism", h.mechanism, "server", redact.URL(req.URL.String()))

	ch, err := parseChallenge(resp)
	if err != nil {
		return h.fail(&Error{Step: stepDiscovery, Err: err})
	}
	if resp.StatusCode == http.StatusForbidden && ch.errorCode != "insufficient_scope" {
		return h.fail(&Error{Step: stepAuthorization, Code: ch.errorCode, Status: resp.StatusCode})
	}
	server, info, err := h.servers.discover(ctx, &h.opts, req, resp, ch)
	if err != nil {
		return h.fail(err)
	}
	log.Debug("oauth: discovered", "resource", info.resource, "issuer", info.asm.Issuer)

	h.mu.Lock()
	defer h.mu.Unlock()
	key := storeKey(h.clientID(), info.resource)
	if resp.StatusCode == http.StatusUnauthorized {
		// A stored token other than the one just refused may still be good.
		if tok, _ := h.store.Get(ctx, key); h.opts.usable(tok, bearerToken(req)) {
			log.Debug("oauth: using stored token")
			h.install(info, tok, key, nil)
			return nil
		}
	}
	if h.refused != nil && time.Since(h.refusedAt) < refusalHold {
		// Do not hammer the token endpoint with a grant it has refused
		// (go-sdk's client may make two requests per connection attempt).
		return h.refused
	}
	scopes := requestedScopes(h.opts.Scopes, ch, info, h.granted)
	tok, err := h.obtain(ctx, info, scopes)
	if err != nil {
		if stale(err) {
			h.servers.forget(server)
		}
		var e *Error
		if errors.As(err, &e) && refusal(e.Code) {
			h.refused, h.refusedAt = e, time.Now()
		}
		return h.fail(err)
	}
	h.refused = nil
	log.Debug("oauth: token obtained", "scopes", strings.Join(scopes, " "))
	h.install(info, tok, key, scopes)
	if err := h.store.Put(ctx, key, tok); err != nil {
		log.Warn("oauth: cannot store token", "err", err)
	}
	return nil
}

// renewTimeout bounds a renewal. It runs under the cached token's lock, so
// a token endpoint that never answers (with an HTTP client without a
// timeout) would otherwise stall every request for good.
const renewTimeout = 30 * time.Second

// refusalHold is how long a refused grant is not retried.
const refusalHold = time.Minute

// refusal reports whether an OAuth error code means the same request
// will be refused again.
func refusal(code string) bool {
	switch code {
	case "invalid_grant", "invalid_client", "invalid_scope", "unauthorized_client", "unsupported_grant_type", "invalid_request", "invalid_target":
		return true
	}
	return false
}

// install makes tok the current token; h.mu is held.
func (h *grantHandler) install(info *serverInfo, tok *oauth2.Token, key string, requested []string) {
	if s := tokenScopes(tok); s != nil {
		h.granted = s
	} else if requested != nil {
		h.granted = requested
	}
	scopes := h.granted
	c := &cachedToken{skew: h.opts.skew()}
	c.set(tok)
	c.renew = func(old *oauth2.Token) (*oauth2.Token, error) {
		ctx, cancel := context.WithTimeout(context.Background(), renewTimeout)
		defer cancel()
		if old != nil && old.RefreshToken != "" {
			form := grantForm(grantRefreshToken, info, nil)
			form.Set("refresh_token", old.RefreshToken)
			t, err := h.opts.postToken(ctx, info.tokenEndpoint(), form, h.client, stepRefresh)
			if err != nil {
				return nil, h.fail(err)
			}
			if t.RefreshToken == "" {
				t.RefreshToken = old.RefreshToken
			}
			return t, nil
		}
		t, err := h.obtain(ctx, info, scopes)
		if err != nil {
			return nil, h.fail(err)
		}
		return t, nil
	}
	c.saved = func(t *oauth2.Token) { _ = h.store.Put(context.Background(), key, t) }
	h.cache = c
}

// obtain runs h's grant at info's token endpoint.
func (h *grantHandler) obtain(ctx context.Context, info *serverInfo, scopes []string) (*oauth2.Token, error) {
	form, err := h.grant(ctx, info, scopes)
	if err != nil {
		return nil, err
	}
	return h.opts.postToken(ctx, info.tokenEndpoint(), form, h.client, stepTokenRequest)
}

// fail names the mechanism in err.
func (h *grantHandler) fail(err error) error {
	if e, ok := err.(*Error); ok && e.Mechanism == "" {
		e.Mechanism = h.mechanism
	}
	return err
}

// bearerToken returns the token req carried, whatever its scheme.
func bearerToken(req *http.Request) string {
	a := req.Header.Get("Authorization")
	if i := strings.IndexByte(a, ' '); i > 0 {
		return strings.TrimSpace(a[i+1:])
	}
	return ""
}
