package auth

import (
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
	// grant run again). Zero means [DefaultSkew].
	Skew time.Duration
	// Scopes, if set, are requested instead of the scopes the server names
	// (WWW-Authenticate scope, else the protected resource metadata's
	// scopes_supported). Scopes from a step-up challenge are always added.
	Scopes []string
	// Logger receives debug records of each step; it never sees a secret.
	// Nil means no logging.
	Logger *slog.Logger

	// now, if set, is the clock tokens expire by (tests move it on).
	now func() time.Time
}

func (o *Options) clock() time.Time {
	if o.now != nil {
		return o.now()
	}
	return time.Now()
}

func (o *Options) client() *http.Client {
	if o.HTTPClient != nil {
		return o.HTTPClient
	}
	return http.DefaultClient
}

func (o *Options) skew() time.Duration {
	if o.Skew > 0 {
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
