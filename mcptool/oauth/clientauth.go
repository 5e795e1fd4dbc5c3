package oauth

import (
	"crypto"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// ClientAuth is how a client identifies and authenticates itself at a token
// endpoint (RFC 6749 section 2.3, RFC 7523 section 2.2): a client ID with a
// secret, with a private key, or with nothing (a public client).
//
// A ClientAuth formats as its method and client ID only: printing it with
// any fmt verb or with slog never shows the secret or the key, and JSON
// leaves them out.
type ClientAuth struct {
	// ID is the client's identifier at the authorization server.
	ID string
	// Secret authenticates a confidential client with client_secret_basic
	// or client_secret_post.
	Secret string `json:"-"`
	// Method is the token_endpoint_auth_method: "client_secret_basic" (id
	// and secret in an HTTP Basic Authorization header),
	// "client_secret_post" (as form parameters), "private_key_jwt" or
	// "none" (client_id alone). Empty chooses: with a Secret, basic when the
	// authorization server lists it or lists nothing (the RFC 7591
	// default), else post; with a Key, private_key_jwt; with neither, none.
	Method string
	// Key signs the client assertion of private_key_jwt: an
	// *ecdsa.PrivateKey, *rsa.PrivateKey or ed25519.PrivateKey (see
	// [ParsePrivateKeyPEM]). The assertion is a JWT with iss and sub the
	// client ID, aud (see Audience), a short exp, iat and a unique jti, signed
	// afresh for every token request.
	Key crypto.Signer `json:"-"`
	// KeyID, if set, is sent as the assertion's kid header.
	KeyID string
	// Algorithm is the assertion's JWS algorithm ("ES256", "RS256",
	// "EdDSA", ...); empty means the key's natural one (ES256 for P-256,
	// RS256 for RSA, EdDSA for Ed25519).
	Algorithm string
	// Audience is the assertion's aud: "issuer" or empty for the
	// authorization server's issuer identifier (RFC 7523bis, and what the
	// MCP conformance suite requires), "token_endpoint" for the token
	// endpoint's URL (what older servers expect, OpenID Connect Core 9), or
	// any other string, sent as it is.
	Audience string
	// Lifetime of an assertion; zero means one minute, negative is refused.
	Lifetime time.Duration
}

// The token endpoint authentication methods (token_endpoint_auth_method).
const (
	methodBasic = "client_secret_basic"
	methodPost  = "client_secret_post"
	methodJWT   = "private_key_jwt"
	methodNone  = "none"
)

// The values of [ClientAuth.Audience] with a meaning.
const (
	audienceIssuer        = "issuer"
	audienceTokenEndpoint = "token_endpoint"
)

// method returns c's method: as set, or as its Secret and Key choose, with
// "client_secret" for a secret whose method the server's metadata decides.
func (c ClientAuth) method() string {
	switch {
	case c.Method != "":
		return c.Method
	case c.Key != nil:
		return methodJWT
	case c.Secret != "":
		return "client_secret"
	}
	return methodNone
}

// zero reports whether c was left unset.
func (c ClientAuth) zero() bool {
	return c.ID == "" && c.Secret == "" && c.Method == "" && c.Key == nil
}

// check refuses a ClientAuth whose fields do not make one method, naming
// the field at fault; field is how the config names c ("Client").
func (c ClientAuth) check(field string) error {
	switch c.Method {
	case "", methodBasic, methodPost, methodJWT, methodNone:
	default:
		return fmt.Errorf("%s.Method %q: want %s, %s, %s or %s", field, c.Method, methodBasic, methodPost, methodJWT, methodNone)
	}
	switch m := c.method(); {
	case c.Secret != "" && c.Key != nil:
		return fmt.Errorf("%s has both a Secret and a Key: give one", field)
	case m == methodJWT && c.Key == nil:
		return fmt.Errorf("%s: %s has no Key", field, methodJWT)
	case (m == methodBasic || m == methodPost) && c.Secret == "":
		return fmt.Errorf("%s: %s has no Secret", field, m)
	case m == methodNone && (c.Secret != "" || c.Key != nil):
		return fmt.Errorf("%s: method none takes no Secret or Key", field)
	case m != methodJWT && c.Key != nil:
		return fmt.Errorf("%s: method %s takes no Key", field, m)
	case c.Lifetime < 0:
		return fmt.Errorf("%s.Lifetime %v is negative", field, c.Lifetime)
	}
	return nil
}

// tokenRequest is a token endpoint request being built.
type tokenRequest struct {
	form   url.Values
	header http.Header
	at     tokenEndpoint
}

// apply authenticates a token request as c.
func (c ClientAuth) apply(r *tokenRequest) error {
	switch m := c.method(); m {
	case methodNone:
		if c.ID != "" {
			r.form.Set("client_id", c.ID)
		}
		return nil
	case methodJWT:
		return c.assert(r)
	case "client_secret":
		m = methodBasic
		if len(r.at.methods) > 0 && !slices.Contains(r.at.methods, m) && slices.Contains(r.at.methods, methodPost) {
			m = methodPost
		}
		return ClientAuth{ID: c.ID, Secret: c.Secret, Method: m}.apply(r)
	case methodPost:
		r.form.Set("client_id", c.ID)
		r.form.Set("client_secret", c.Secret)
		return nil
	}
	// RFC 6749 section 2.3.1: form-encode both before Base64.
	cred := url.QueryEscape(c.ID) + ":" + url.QueryEscape(c.Secret)
	r.header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(cred)))
	return nil
}

// assert adds a private_key_jwt client assertion to r.
func (c ClientAuth) assert(r *tokenRequest) error {
	if c.Key == nil {
		return errors.New("private_key_jwt: no key")
	}
	aud := c.Audience
	switch aud {
	case "", audienceIssuer:
		aud = r.at.issuer
	case audienceTokenEndpoint:
		aud = r.at.url
	}
	life := c.Lifetime
	if life <= 0 {
		life = time.Minute
	}
	now := time.Now()
	claims := map[string]any{
		"iss": c.ID,
		"sub": c.ID,
		"aud": aud,
		"iat": now.Unix(),
		"exp": now.Add(life).Unix(),
		"jti": rand.Text(),
	}
	assertion, err := signJWT(c.Key, jose.SignatureAlgorithm(c.Algorithm), "JWT", c.KeyID, false, claims)
	if err != nil {
		return fmt.Errorf("private_key_jwt: %v", err)
	}
	r.form.Set("client_id", c.ID)
	r.form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
	r.form.Set("client_assertion", assertion)
	return nil
}

// describe is what c shows of itself: its method and client ID.
func (c ClientAuth) describe() string { return c.method() + "(" + c.ID + ")" }

// Format writes c as its method and client ID, whatever the verb, so that
// no way of printing it shows the secret or the key.
func (c ClientAuth) Format(f fmt.State, _ rune) { fmt.Fprint(f, c.describe()) }
