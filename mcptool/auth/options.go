package auth

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"
)

// DefaultSkew is how long before its expiry a cached token is renewed when
// [Options.Skew] is zero.
const DefaultSkew = 30 * time.Second

// Options are the settings every mechanism shares. The zero value is usable.
type Options struct {
	// HTTPClient sends discovery, registration and token requests.
	// Nil means http.DefaultClient. To bind tokens with DPoP, use a client
	// whose transport is [DPoP.Transport].
	HTTPClient *http.Client
	// Store keeps tokens per client and server. Nil means a new [MemoryStore].
	Store TokenStore
	// Skew is how long before expiry a token is renewed (refreshed, or the
	// grant run again). Zero means [DefaultSkew]; negative is refused.
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
	// Logger receives debug records of each step; it never sees a secret.
	// Nil means no logging.
	Logger *slog.Logger
}

// check refuses what the package's option rule does not allow: a negative
// Skew, or a [PrivateKeyJWT] among clients without a key or with a negative
// Lifetime.
func (o *Options) check(clients ...ClientAuth) error {
	if o.Skew < 0 {
		return fmt.Errorf("Skew %v is negative", o.Skew)
	}
	for _, c := range clients {
		if p, ok := c.(*PrivateKeyJWT); ok && p.Key == nil {
			return errors.New("PrivateKeyJWT has no Key")
		} else if ok && p.Lifetime < 0 {
			return fmt.Errorf("PrivateKeyJWT.Lifetime %v is negative", p.Lifetime)
		}
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
	return DefaultSkew
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
	return NewMemoryStore()
}
