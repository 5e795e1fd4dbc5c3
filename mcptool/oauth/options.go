package oauth

import (
	"crypto"
	"fmt"
	"log/slog"
	"net/http"
	"time"
)

// defaultSkew is how long before its expiry a cached token is renewed when
// [Options.Skew] is zero.
const defaultSkew = 30 * time.Second

// Options are the settings every mechanism shares. The zero value is usable.
type Options struct {
	// HTTPClient sends discovery, registration and token requests.
	// Nil means http.DefaultClient.
	HTTPClient *http.Client
	// Store keeps tokens per client and server, for a store that outlives
	// the handler (between runs, say). Nil keeps them in memory, for the
	// handler's life.
	Store TokenStore
	// Skew is how long before expiry a token is renewed (refreshed, or the
	// grant run again). Zero means 30 seconds; negative is refused. A token
	// is renewed no earlier than half its lifetime.
	Skew time.Duration
	// Scopes, if set, are requested instead of the scopes the server names
	// (WWW-Authenticate scope, else the protected resource metadata's
	// scopes_supported). Scopes from a step-up challenge are always added.
	Scopes []string
	// Issuer pins the authorization server: its issuer identifier (RFC
	// 8414), e.g. "https://auth.example.com". The handler then uses only that
	// one; when the MCP server's protected resource metadata names others
	// (the metadata is the MCP server's to write), Authorize fails with an
	// *[Error] wrapping [ErrUntrustedIssuer] that names both, and nothing is
	// sent to the other, not even a metadata request.
	//
	// Empty means no pin. A mechanism that sends a credential to the token
	// endpoint (a client secret, a private-key JWT, a JWT-bearer assertion,
	// an enterprise grant's ID-JAG) then uses only an authorization server on
	// the MCP server's own origin; the authorization code flow follows the
	// metadata, except that a pre-registered client with a secret must have
	// an Issuer. Pinned or not, a token endpoint the authorization server's
	// metadata names on another origin than its issuer's is refused the
	// same way. [AnyIssuer] trusts whatever the metadata names.
	Issuer string
	// DPoP, if set, binds the tokens to this key (RFC 9449, MCP extension
	// SEP-1932), so that a stolen token is useless without it: an
	// *ecdsa.PrivateKey, *rsa.PrivateKey or ed25519.PrivateKey. Token
	// requests then carry a proof, and so does every request to the MCP
	// server, whose token goes as "Authorization: DPoP", when the handler
	// is given to mcptool (which adds [Transport] to the server's HTTP
	// client). A server's nonce is honoured with one retry at both ends; a
	// token the token endpoint issued as Bearer (it declined to bind it)
	// is sent as Bearer, with no proof.
	DPoP crypto.Signer `json:"-"`
	// Logger receives debug records of each step; it never sees a secret.
	// Nil means no logging.
	Logger *slog.Logger

	// dpop holds the proofs' state when DPoP is set: made by setup, which
	// also routes HTTPClient through it.
	dpop *dpop
}

// setup checks o, as the package's option rule says, and the client
// authentications a mechanism uses, named by their fields, and readies o
// for use: a DPoP key makes the state its proofs share, and the client
// that sends the token requests adds them.
func (o *Options) setup(clients map[string]ClientAuth) error {
	if o.Skew < 0 {
		return fmt.Errorf("Skew %v is negative", o.Skew)
	}
	for field, c := range clients {
		if err := c.check(field); err != nil {
			return err
		}
	}
	if o.DPoP != nil {
		d, err := newDPoP(o.DPoP)
		if err != nil {
			return fmt.Errorf("DPoP: %v", err)
		}
		o.dpop = d
		c := *o.client()
		c.Transport = d.transport(c.Transport)
		o.HTTPClient = &c
	}
	return nil
}

// pin returns the pinned issuer, or "" for none or [AnyIssuer].
func (o *Options) pin() string {
	if o.Issuer == AnyIssuer {
		return ""
	}
	return o.Issuer
}

func (o *Options) client() *http.Client {
	if o.HTTPClient != nil {
		return o.HTTPClient
	}
	return http.DefaultClient
}

func (o *Options) skew() time.Duration {
	if o.Skew != 0 {
		return o.Skew
	}
	return defaultSkew
}

func (o *Options) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.New(slog.DiscardHandler)
}

func (o *Options) store() TokenStore {
	if o.Store != nil {
		return o.Store
	}
	return &memoryStore{}
}

// BindTransport returns base with what every request to the MCP server
// needs for o's tokens: DPoP proofs, when o has a key. The handlers'
// methods of the same name forward to it; see [Transport].
func (o *Options) bindTransport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	if o.dpop == nil {
		return base
	}
	return o.dpop.transport(base)
}
