package gateway

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// The bounds of checking JWT access tokens.
const (
	// leeway is how far a token's exp and nbf may be off, for clocks that
	// are not quite together.
	leeway = 30 * time.Second
	// keysRefresh bounds how often a token signed with a key the gateway
	// does not know makes it fetch the issuer's keys again (after a
	// rotation): tokens with made-up kids must not make it hammer the
	// issuer.
	keysRefresh = 30 * time.Second
	// keysMaxAge is how long keys are used without a fetch: a key the
	// issuer withdrew stops working within it.
	keysMaxAge = time.Hour
	// keysTimeout bounds one fetch of the issuer's metadata and keys, and
	// keysLimit the size of the key set.
	keysTimeout = 10 * time.Second
	keysLimit   = 1 << 20
)

// algorithms are the signature algorithms a token may use: asymmetric ones
// only, so that a public key can never be used as an HMAC secret, and
// never "none".
var algorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA,
}

// The keys of an [auth.TokenInfo]'s Extra the gateway sets.
const (
	clientKey      = "mcpbridge/client" // a JWT's app: client_id, azp or sub
	passthroughKey = "mcpbridge/token"  // the token itself, for Options.Passthrough
)

// issuerKeys checks JWT access tokens against the keys of one issuer,
// fetched when first needed and kept: fetched again when a token names a
// key it does not have (at most every keysRefresh) or when they are older
// than keysMaxAge.
//
// A fetch runs on the gateway's context, not on the request's that
// prompted it: a client that hangs up cannot abort it, and so cannot make
// it count as tried while it fetched nothing, keeping the issuer's new keys
// out for keysRefresh at a time. Requests that need it wait for it, each
// until its own context ends. Only a fetch the gateway's closing cut does
// not count as tried.
type issuerKeys struct {
	cfg    OAuth
	client *http.Client
	ctx    context.Context // the gateway's

	mu      sync.Mutex // never held across a fetch
	jwksURL string
	set     jose.JSONWebKeySet
	fetched time.Time     // when set came
	tried   time.Time     // when the last fetch that counts began
	err     error         // why the last fetch failed, or nil
	pending chan struct{} // closed when the fetch under way ends; nil when none is
	closed  bool          // no fetch starts any more
	fetches sync.WaitGroup
}

func newIssuerKeys(ctx context.Context, o OAuth) *issuerKeys {
	return &issuerKeys{cfg: o, client: cmp.Or(o.HTTPClient, http.DefaultClient), jwksURL: o.JWKSURL, ctx: ctx}
}

// close ends the fetch under way, once the gateway's context is done, and
// waits for it; no fetch starts after.
func (k *issuerKeys) close() {
	k.mu.Lock()
	k.closed = true
	k.mu.Unlock()
	k.fetches.Wait()
}

// verify checks token as an access token for the gateway (RFC 9068
// section 4): of a type an access token may have (accessTokenType),
// signed by a key of the issuer with an asymmetric algorithm, iss the
// issuer, exp present and not passed, nbf passed (both within leeway), aud
// naming the resource. A token refused is a [*tokenError].
func (k *issuerKeys) verify(ctx context.Context, token string) (*auth.TokenInfo, error) {
	tok, err := jwt.ParseSigned(token, algorithms)
	if err != nil {
		return nil, &tokenError{"not a JWT signed with an asymmetric key"}
	}
	if typ, _ := tok.Headers[0].ExtraHeaders[jose.HeaderType].(string); !accessTokenType(typ) {
		return nil, &tokenError{"a JWT of another type than an access token (typ at+jwt)"}
	}
	key, err := k.key(ctx, tok.Headers[0].KeyID)
	if err != nil {
		return nil, err
	}
	var (
		c     jwt.Claims
		extra struct {
			Scope    string   `json:"scope"`
			Scp      []string `json:"scp"` // as some issuers write the scopes
			ClientID string   `json:"client_id"`
			Azp      string   `json:"azp"`
		}
	)
	var all map[string]any
	if err := tok.Claims(key, &c, &extra, &all); err != nil {
		return nil, &tokenError{"bad signature"}
	}
	err = c.ValidateWithLeeway(jwt.Expected{Issuer: k.cfg.Issuer, Time: time.Now()}, leeway)
	switch {
	case c.Expiry == nil:
		return nil, &tokenError{"no exp claim"}
	case errors.Is(err, jwt.ErrExpired):
		return nil, &tokenError{"expired"}
	case errors.Is(err, jwt.ErrNotValidYet), errors.Is(err, jwt.ErrIssuedInTheFuture):
		return nil, &tokenError{"not valid yet"}
	case errors.Is(err, jwt.ErrInvalidIssuer):
		return nil, &tokenError{"issued by another authorization server"}
	case err != nil:
		return nil, &tokenError{"claims not valid"}
	case !oauthex.MatchesResource(c.Audience, k.cfg.Resource):
		return nil, &tokenError{"its audience is not this gateway"}
	}
	scopes := append(strings.Fields(extra.Scope), extra.Scp...)
	app := cmp.Or(extra.ClientID, extra.Azp, c.Subject)
	user, err := k.user(c, all)
	if err != nil {
		return nil, err
	}
	return &auth.TokenInfo{
		Scopes:     scopes,
		Expiration: c.Expiry.Time(),
		UserID:     userOf(app, cmp.Or(k.cfg.UserClaim, "sub"), user),
		Extra:      map[string]any{clientKey: app},
	}, nil
}

// user is the token's user: the claim [OAuth] UserClaim names, or its
// subject ("" for none: the token is its app's own).
func (k *issuerKeys) user(c jwt.Claims, all map[string]any) (string, error) {
	if k.cfg.UserClaim == "" {
		return c.Subject, nil
	}
	switch v := all[k.cfg.UserClaim].(type) {
	case string:
		if v != "" {
			return v, nil
		}
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), nil
	}
	return "", &tokenError{"no " + k.cfg.UserClaim + " claim naming its user"}
}

// userOf names the client a token is: the user of the app app, whom the
// claim claim says, or the app itself, for a token of its own (a client
// credentials grant, whose subject is the app). The issuer is the
// gateway's one: a client's name is unique under it.
func userOf(app, claim, user string) string {
	if user == "" || user == app {
		return app
	}
	return app + " (" + claim + " " + user + ")"
}

// accessTokenType reports whether a JWT whose header's typ is typ may be an
// access token. RFC 9068 types access tokens at+jwt (or
// application/at+jwt), and a JWT of another explicit type (a DPoP proof, a
// logout token, a client assertion, a request object), which the issuer
// may sign with the same keys, is none. An issuer that does not type its
// access tokens, leaving typ out or writing the generic JWT (as many
// deployed issuers do), is not held to it: where it sets a type, the type
// is checked.
func accessTokenType(typ string) bool {
	t := strings.TrimPrefix(strings.ToLower(typ), "application/")
	return t == "" || t == "jwt" || t == "at+jwt"
}

// key returns the issuer's key named kid (or its only key, for a token
// without kid), fetching the keys if they are old or lack it and the last
// fetch was not too recent, or waiting for the fetch under way. A key it
// cannot find is a [*tokenError]; keys it cannot fetch, while it has none
// to use, another error, and so is ctx ending first.
func (k *issuerKeys) key(ctx context.Context, kid string) (*jose.JSONWebKey, error) {
	k.mu.Lock()
	key := k.find(kid)
	if key != nil && time.Since(k.fetched) < keysMaxAge {
		k.mu.Unlock()
		return key, nil
	}
	done := k.pending
	if done == nil && !k.closed && (k.tried.IsZero() || time.Since(k.tried) >= keysRefresh) {
		done = k.startFetch()
	}
	if done == nil {
		defer k.mu.Unlock()
		return k.keyOrRefusal(key)
	}
	k.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if now := k.find(kid); now != nil {
		return now, nil
	}
	return k.keyOrRefusal(key)
}

// keyOrRefusal is key, which the last fetch did not list (nil if the keys
// before it did not either), when that fetch failed: the issuer is away,
// and the keys it had still hold. Without key, it is the refusal of a token
// signed with a key not listed, or the failure of the fetch when there are
// no keys at all. k.mu is held.
func (k *issuerKeys) keyOrRefusal(key *jose.JSONWebKey) (*jose.JSONWebKey, error) {
	switch {
	case key != nil && k.err != nil:
		return key, nil
	case k.err != nil && k.fetched.IsZero():
		return nil, k.err
	}
	return nil, &tokenError{"signed with a key the authorization server does not list"}
}

// startFetch starts fetching the keys on the gateway's context, bounded by
// keysTimeout, and returns a channel closed when the fetch has ended and
// its outcome is kept. k.mu is held.
func (k *issuerKeys) startFetch() chan struct{} {
	done := make(chan struct{})
	k.pending = done
	jwksURL := k.jwksURL
	k.fetches.Add(1)
	go func() {
		defer k.fetches.Done()
		began := time.Now()
		ctx, cancel := context.WithTimeout(k.ctx, keysTimeout)
		set, jwksURL, err := k.fetch(ctx, jwksURL)
		cancel()
		k.mu.Lock()
		defer k.mu.Unlock()
		k.jwksURL, k.err = jwksURL, err
		if k.ctx.Err() == nil { // a fetch the gateway's closing cut does not count
			k.tried = began
		}
		if err == nil {
			k.set, k.fetched = set, time.Now()
		}
		k.pending = nil
		close(done)
	}()
	return done
}

func (k *issuerKeys) find(kid string) *jose.JSONWebKey {
	var sig []jose.JSONWebKey
	for _, key := range k.set.Keys {
		if key.Use == "" || key.Use == "sig" {
			sig = append(sig, key)
		}
	}
	if kid == "" && len(sig) == 1 {
		return &sig[0]
	}
	for i := range sig {
		if kid != "" && sig[i].KeyID == kid {
			return &sig[i]
		}
	}
	return nil
}

// fetch reads the issuer's key set at jwksURL, finding it through the
// issuer's metadata if it is empty, and returns it with its URL.
func (k *issuerKeys) fetch(ctx context.Context, jwksURL string) (jose.JSONWebKeySet, string, error) {
	var set jose.JSONWebKeySet
	if jwksURL == "" {
		meta, err := auth.GetAuthServerMetadata(ctx, k.cfg.Issuer, k.client)
		switch {
		case err != nil:
			return set, "", fmt.Errorf("gateway: issuer %s: metadata: %w", k.cfg.Issuer, err)
		case meta == nil:
			return set, "", fmt.Errorf("gateway: issuer %s: no authorization server metadata found", k.cfg.Issuer)
		case meta.JWKSURI == "":
			return set, "", fmt.Errorf("gateway: issuer %s: its metadata has no jwks_uri", k.cfg.Issuer)
		}
		jwksURL = meta.JWKSURI
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, jwksURL, nil)
	if err != nil {
		return set, jwksURL, fmt.Errorf("gateway: issuer %s: keys: %w", k.cfg.Issuer, err)
	}
	resp, err := k.client.Do(req)
	if err != nil {
		return set, jwksURL, fmt.Errorf("gateway: issuer %s: keys: %w", k.cfg.Issuer, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return set, jwksURL, fmt.Errorf("gateway: issuer %s: keys: %s", k.cfg.Issuer, resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, keysLimit)).Decode(&set); err != nil {
		return set, jwksURL, fmt.Errorf("gateway: issuer %s: keys: %w", k.cfg.Issuer, err)
	}
	return set, jwksURL, nil
}
