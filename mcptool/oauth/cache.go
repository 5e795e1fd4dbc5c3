package oauth

import (
	"errors"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// cachedToken is an oauth2.TokenSource that returns its token until it is
// about to expire and then renews it. A token is renewed when less than
// min(skew, lifetime/2) of its lifetime is left, so a short-lived token is
// not renewed on every request.
type cachedToken struct {
	mu       sync.Mutex
	tok      *oauth2.Token
	obtained time.Time
	skew     time.Duration
	// renew returns a new token to replace old (refresh or new grant).
	renew func(old *oauth2.Token) (*oauth2.Token, error)
	// saved is called with each new token (persist it).
	saved func(*oauth2.Token)
}

func (c *cachedToken) set(tok *oauth2.Token) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tok, c.obtained = tok, time.Now()
}

// Token implements oauth2.TokenSource.
func (c *cachedToken) Token() (*oauth2.Token, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tok != nil && !expiring(c.tok, c.obtained, c.skew, time.Now()) {
		return c.tok, nil
	}
	if c.renew == nil {
		if c.tok == nil {
			return nil, errors.New("oauth: no token")
		}
		return c.tok, nil
	}
	tok, err := c.renew(c.tok)
	if err != nil {
		return nil, err
	}
	c.tok, c.obtained = tok, time.Now()
	if c.saved != nil {
		c.saved(tok)
	}
	return tok, nil
}

// usable reports whether tok, read from the store, may be used instead of
// refused, the access token the server has just refused.
func (o *Options) usable(tok *oauth2.Token, refused string) bool {
	return tok != nil && tok.AccessToken != refused && !expiring(tok, time.Time{}, o.skew(), time.Now())
}

// expiring reports whether tok, obtained at obtained, should be renewed at now.
func expiring(tok *oauth2.Token, obtained time.Time, skew time.Duration, now time.Time) bool {
	if tok.AccessToken == "" {
		return true
	}
	if tok.Expiry.IsZero() {
		return false
	}
	if !obtained.IsZero() {
		if half := tok.Expiry.Sub(obtained) / 2; half < skew {
			skew = half
		}
	}
	return !now.Add(skew).Before(tok.Expiry)
}
