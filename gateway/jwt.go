package gateway

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
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
	clientKey      = "mcpbridge/client" // a JWT's client: client_id, azp or sub
	passthroughKey = "mcpbridge/token"  // the token itself, for WithTokenPassthrough
)

// issuerKeys checks JWT access tokens against the keys of one issuer,
// fetched when first needed and kept: fetched again when a token names a
// key it does not have (at most every keysRefresh) or when they are older
// than keysMaxAge.
type issuerKeys struct {
	cfg    OAuth
	client *http.Client

	mu      sync.Mutex // held during a fetch: concurrent checks wait for it
	jwksURL string
	set     jose.JSONWebKeySet
	fetched time.Time // when set came
	tried   time.Time // when a fetch was last tried
}

func newIssuerKeys(o OAuth) *issuerKeys {
	return &issuerKeys{cfg: o, client: cmp.Or(o.HTTPClient, http.DefaultClient), jwksURL: o.JWKSURL}
}

// verify checks token as an access token for the gateway (RFC 9068
// section 4): signed by a key of the issuer with an asymmetric algorithm,
// iss the issuer, exp present and not passed, nbf passed (both within
// leeway), aud naming the resource. A token refused is a [*tokenError].
func (k *issuerKeys) verify(ctx context.Context, token string) (*auth.TokenInfo, error) {
	tok, err := jwt.ParseSigned(token, algorithms)
	if err != nil {
		return nil, &tokenError{"not a JWT signed with an asymmetric key"}
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
	if err := tok.Claims(key, &c, &extra); err != nil {
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
	client := cmp.Or(extra.ClientID, extra.Azp, c.Subject)
	return &auth.TokenInfo{
		Scopes:     scopes,
		Expiration: c.Expiry.Time(),
		UserID:     cmp.Or(c.Subject, client),
		Extra:      map[string]any{clientKey: client},
	}, nil
}

// key returns the issuer's key named kid (or its only key, for a token
// without kid), fetching the keys if they are old or lack it and the last
// fetch was not too recent. A key it cannot find is a [*tokenError]; keys it
// cannot fetch, while it has none to use, another error.
func (k *issuerKeys) key(ctx context.Context, kid string) (*jose.JSONWebKey, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := time.Now()
	key := k.find(kid)
	if key != nil && now.Sub(k.fetched) < keysMaxAge {
		return key, nil
	}
	if k.tried.IsZero() || now.Sub(k.tried) >= keysRefresh {
		k.tried = now
		err := k.fetch(ctx)
		switch {
		case err != nil && key != nil:
			return key, nil // the issuer is away: the keys it had still hold
		case err != nil && k.fetched.IsZero():
			return nil, err
		}
		key = k.find(kid)
	}
	if key == nil {
		return nil, &tokenError{"signed with a key the authorization server does not list"}
	}
	return key, nil
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

// fetch reads the issuer's key set, finding it through the issuer's
// metadata the first time.
func (k *issuerKeys) fetch(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, keysTimeout)
	defer cancel()
	if k.jwksURL == "" {
		meta, err := auth.GetAuthServerMetadata(ctx, k.cfg.Issuer, k.client)
		switch {
		case err != nil:
			return fmt.Errorf("gateway: issuer %s: metadata: %w", k.cfg.Issuer, err)
		case meta == nil:
			return fmt.Errorf("gateway: issuer %s: no authorization server metadata found", k.cfg.Issuer)
		case meta.JWKSURI == "":
			return fmt.Errorf("gateway: issuer %s: its metadata has no jwks_uri", k.cfg.Issuer)
		}
		k.jwksURL = meta.JWKSURI
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.jwksURL, nil)
	if err != nil {
		return fmt.Errorf("gateway: issuer %s: keys: %w", k.cfg.Issuer, err)
	}
	resp, err := k.client.Do(req)
	if err != nil {
		return fmt.Errorf("gateway: issuer %s: keys: %w", k.cfg.Issuer, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("gateway: issuer %s: keys: %s", k.cfg.Issuer, resp.Status)
	}
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(io.LimitReader(resp.Body, keysLimit)).Decode(&set); err != nil {
		return fmt.Errorf("gateway: issuer %s: keys: %w", k.cfg.Issuer, err)
	}
	k.set, k.fetched = set, time.Now()
	return nil
}
