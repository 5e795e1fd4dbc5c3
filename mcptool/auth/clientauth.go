package auth

import (
	"crypto"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// ClientAuth is how a client authenticates at a token endpoint
// (RFC 6749 section 2.3, RFC 7523 section 2.2). Use [ClientSecretBasic],
// [ClientSecretPost], [ClientSecret], [PublicClient] or [*PrivateKeyJWT].
//
// A ClientAuth formats as its method and client ID only: printing or
// logging it never shows the secret or the key.
type ClientAuth interface {
	// ClientID is the client's identifier at the authorization server.
	ClientID() string
	// Method is the token_endpoint_auth_method, e.g. "client_secret_basic".
	Method() string
	// apply authenticates a token request.
	apply(r *tokenRequest) error
}

// tokenRequest is a token endpoint request being built.
type tokenRequest struct {
	form   url.Values
	header http.Header
	at     tokenEndpoint
}

type secretAuth struct {
	id, secret string
	method     string // "client_secret_basic", "client_secret_post" or "" (choose)
}

// ClientSecretBasic authenticates with id and secret in an HTTP Basic
// Authorization header ("client_secret_basic").
func ClientSecretBasic(id, secret string) ClientAuth {
	return &secretAuth{id: id, secret: secret, method: "client_secret_basic"}
}

// ClientSecretPost authenticates with id and secret as client_id and
// client_secret form parameters ("client_secret_post").
func ClientSecretPost(id, secret string) ClientAuth {
	return &secretAuth{id: id, secret: secret, method: "client_secret_post"}
}

// ClientSecret authenticates with id and secret by the method the
// authorization server advertises: client_secret_basic when it lists it or
// lists nothing (the RFC 7591 default), else client_secret_post.
func ClientSecret(id, secret string) ClientAuth {
	return &secretAuth{id: id, secret: secret}
}

func (a *secretAuth) ClientID() string { return a.id }

func (a *secretAuth) Method() string {
	if a.method == "" {
		return "client_secret"
	}
	return a.method
}

func (a *secretAuth) apply(r *tokenRequest) error {
	m := a.method
	if m == "" {
		m = "client_secret_basic"
		if len(r.at.methods) > 0 && !slices.Contains(r.at.methods, m) && slices.Contains(r.at.methods, "client_secret_post") {
			m = "client_secret_post"
		}
	}
	if m == "client_secret_post" {
		r.form.Set("client_id", a.id)
		r.form.Set("client_secret", a.secret)
		return nil
	}
	// RFC 6749 section 2.3.1: form-encode both before Base64.
	cred := url.QueryEscape(a.id) + ":" + url.QueryEscape(a.secret)
	r.header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(cred)))
	return nil
}

func (a *secretAuth) String() string   { return a.Method() + "(" + a.id + ")" }
func (a *secretAuth) GoString() string { return a.String() }

// LogValue implements [slog.LogValuer] without the secret.
func (a *secretAuth) LogValue() slog.Value { return slog.StringValue(a.String()) }

type publicClient struct{ id string }

// PublicClient identifies a client that has no credentials ("none"): only
// client_id is sent.
func PublicClient(id string) ClientAuth { return publicClient{id} }

func (a publicClient) ClientID() string { return a.id }
func (a publicClient) Method() string   { return "none" }
func (a publicClient) apply(r *tokenRequest) error {
	if a.id != "" {
		r.form.Set("client_id", a.id)
	}
	return nil
}

// Audience choices for [PrivateKeyJWT.Audience].
const (
	// AudienceIssuer puts the authorization server's issuer identifier in
	// aud, as RFC 7523bis and the MCP conformance suite require. The default.
	AudienceIssuer = "issuer"
	// AudienceTokenEndpoint puts the token endpoint URL in aud, as older
	// servers (OpenID Connect Core 9) expect.
	AudienceTokenEndpoint = "token_endpoint"
)

// PrivateKeyJWT authenticates with a client assertion signed by the
// client's private key ("private_key_jwt", RFC 7523 section 2.2): a JWT with
// iss and sub the client ID, aud the issuer (or token endpoint), a short exp,
// iat and a unique jti, sent as client_assertion with client_assertion_type
// urn:ietf:params:oauth:client-assertion-type:jwt-bearer. A fresh assertion
// is signed for every token request.
type PrivateKeyJWT struct {
	// ID is the client ID. Required.
	ID string
	// Key signs the assertion: an *ecdsa.PrivateKey, *rsa.PrivateKey or
	// ed25519.PrivateKey (see [ParsePrivateKeyPEM]). Required.
	Key crypto.Signer
	// KeyID, if set, is sent as the JWS kid header.
	KeyID string
	// Algorithm defaults to the key's natural one (ES256 for P-256, RS256
	// for RSA, EdDSA for Ed25519).
	Algorithm jose.SignatureAlgorithm
	// Audience is [AudienceIssuer] (default), [AudienceTokenEndpoint], or
	// any other string, used verbatim.
	Audience string
	// Lifetime of an assertion; zero means one minute, negative is refused.
	Lifetime time.Duration
}

// ClientID implements [ClientAuth].
func (p *PrivateKeyJWT) ClientID() string { return p.ID }

// Method implements [ClientAuth].
func (p *PrivateKeyJWT) Method() string { return "private_key_jwt" }

// String describes p without its key.
func (p *PrivateKeyJWT) String() string { return "private_key_jwt(" + p.ID + ")" }

// GoString describes p without its key.
func (p *PrivateKeyJWT) GoString() string { return p.String() }

// LogValue implements [slog.LogValuer] without the key.
func (p *PrivateKeyJWT) LogValue() slog.Value { return slog.StringValue(p.String()) }

func (p *PrivateKeyJWT) apply(r *tokenRequest) error {
	if p.Key == nil {
		return fmt.Errorf("private_key_jwt: no key")
	}
	aud := p.Audience
	switch aud {
	case "", AudienceIssuer:
		aud = r.at.issuer
	case AudienceTokenEndpoint:
		aud = r.at.url
	}
	life := p.Lifetime
	if life <= 0 {
		life = time.Minute
	}
	now := time.Now()
	claims := map[string]any{
		"iss": p.ID,
		"sub": p.ID,
		"aud": aud,
		"iat": now.Unix(),
		"exp": now.Add(life).Unix(),
		"jti": rand.Text(),
	}
	assertion, err := signJWT(p.Key, p.Algorithm, "JWT", p.KeyID, false, claims)
	if err != nil {
		return fmt.Errorf("private_key_jwt: %v", err)
	}
	r.form.Set("client_id", p.ID)
	r.form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
	r.form.Set("client_assertion", assertion)
	return nil
}
