package gateway_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/internal/testing/oauthtest"
)

// oauthGateway starts, in a bubble, an issuer and a gateway that takes its
// tokens, fetching the keys through wrap (nil: straight), closed as the
// test ends. mint is a token the issuer signs for the gateway, of type typ.
func oauthGateway(t *testing.T, wrap func(http.RoundTripper) http.RoundTripper) (g *gateway.Gateway, issuer *oauthtest.Server, mint func(typ string) string) {
	t.Helper()
	var n oauthtest.Network
	issuer = n.Start(oauthtest.Config{JWT: true})
	const resource = "https://gateway.example/mcp"
	client := n.Client()
	if wrap != nil {
		client.Transport = wrap(client.Transport)
	}
	g, err := gateway.Start(t.Context(), &config.Config{}, &gateway.Options{
		OAuth: &gateway.OAuth{Issuer: issuer.URL, Resource: resource, HTTPClient: client},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g, issuer, func(typ string) string {
		return issuer.MintTyped(typ, map[string]any{"iss": issuer.URL, "sub": "ada", "aud": resource, "exp": time.Now().Add(time.Hour).Unix()})
	}
}

// slowKeys delays each fetch of the issuer's keys by 200 ms, as an issuer
// across a network does, giving up with the request's context.
type slowKeys struct{ next http.RoundTripper }

func (s slowKeys) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Path, "/jwks") {
		select {
		case <-time.After(200 * time.Millisecond):
		case <-r.Context().Done():
			return nil, r.Context().Err()
		}
	}
	return s.next.RoundTrip(r)
}

// A client cannot keep the issuer's new keys from the gateway: after a
// rotation, an unauthenticated client sends a token with a made-up kid
// every 100 ms and hangs up at once. The fetch it prompts runs on the
// gateway's own context, so its hanging up does not abort it, and every
// token of the new key is taken; before, the fetch ran under the client's
// request, was cut with it and still counted as tried for 30 s, and 0 of 95
// tokens of the new key were taken over 95 s. The fetches stay one per 30 s.
func TestAClientHangingUpCannotKeepTheIssuersKeysUnfetched(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, issuer, mint := oauthGateway(t, func(rt http.RoundTripper) http.RoundTripper { return slowKeys{rt} })
		h := g.Handler()
		token := func() string { return mint("at+jwt") }
		if rec := listTools(h, token()); rec.Code != 200 {
			t.Fatalf("a token of the issuer: %d", rec.Code)
		}
		var elsewhere oauthtest.Network
		stranger := elsewhere.Start(oauthtest.Config{JWT: true})
		for range 5 {
			stranger.Rotate() // its kid, key-6, is none of the issuer's
		}
		madeUp := stranger.Mint(map[string]any{"iss": issuer.URL, "aud": "https://gateway.example/mcp", "exp": time.Now().Add(time.Hour).Unix()})
		issuer.Rotate()
		time.Sleep(31 * time.Second) // the keys may be fetched again

		// One client after the other, as a mutex held across a fetch would
		// make the bubble wait on what it cannot see.
		taken := 0
		for i := range 950 {
			ctx, hangUp := context.WithTimeout(context.Background(), time.Millisecond)
			listTools(h, madeUp, ctx)
			hangUp()
			if i%10 != 0 {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			time.Sleep(50 * time.Millisecond)
			if listTools(h, token()).Code == 200 {
				taken++
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Logf("tokens of the new key taken while a client hung up every 100 ms: %d of 95", taken)
		if taken != 95 {
			t.Errorf("%d of 95 tokens of the new key taken, want all", taken)
		}
		if got := issuer.Served("/jwks"); got < 2 || got > 5 {
			t.Errorf("the keys were fetched %d times in 126 s, want one fetch a 30 s at most, and the rotation's", got)
		}
	})
}

// Only an access token is taken (RFC 9068 section 4): a JWT the issuer
// typed otherwise, signed with the same keys (a DPoP proof, a logout token,
// a client assertion), is refused, saying so. An issuer that does not type
// its access tokens, leaving typ out or writing the generic JWT, is not
// held to it.
func TestOAuthTakesOnlyAJWTTypedAsAnAccessToken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, _, mint := oauthGateway(t, nil)
		for typ, want := range map[string]int{
			"at+jwt": 200, "application/at+jwt": 200, "AT+JWT": 200, "": 200, "JWT": 200,
			"dpop+jwt": 401, "logout+jwt": 401, "client-authentication+jwt": 401, "secevent+jwt": 401,
		} {
			rec := listTools(g.Handler(), mint(typ))
			if rec.Code != want || want == 401 && !strings.Contains(rec.Header().Get("WWW-Authenticate"), `error_description="a JWT of another type than an access token (typ at+jwt)"`) {
				t.Errorf("typ %q: %d %q, want %d", typ, rec.Code, rec.Header().Get("WWW-Authenticate"), want)
			}
		}
	})
}

// hangingKeys never answers a fetch of the keys: it gives up only with the
// request's context.
type hangingKeys struct{ next http.RoundTripper }

func (h hangingKeys) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Path, "/jwks") {
		<-r.Context().Done()
		return nil, r.Context().Err()
	}
	return h.next.RoundTrip(r)
}

// A fetch of the keys that the gateway runs on its own is bounded: an
// issuer that never answers costs 10 s, after which a token is answered 503
// and the next fetch waits its 30 s; Close ends a fetch under way, leaving
// no goroutine (the bubble ends with none).
func TestAFetchOfTheKeysIsBoundedAndEndsWithTheGateway(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, _, mint := oauthGateway(t, func(rt http.RoundTripper) http.RoundTripper { return hangingKeys{rt} })
		token := mint("at+jwt")
		start := time.Now()
		if rec := listTools(g.Handler(), token); rec.Code != 503 || time.Since(start) != 10*time.Second {
			t.Errorf("keys that never come: %d after %v, want 503 after 10s", rec.Code, time.Since(start))
		}
		start = time.Now()
		if rec := listTools(g.Handler(), token); rec.Code != 503 || time.Since(start) != 0 {
			t.Errorf("at once after: %d after %v, want 503 without a fetch", rec.Code, time.Since(start))
		}
		time.Sleep(30 * time.Second)
		ctx, hangUp := context.WithTimeout(context.Background(), time.Second)
		defer hangUp()
		listTools(g.Handler(), token, ctx) // starts a fetch, and leaves it
		g.Close()
	})
}
