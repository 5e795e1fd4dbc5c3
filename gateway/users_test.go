package gateway_test

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/internal/testing/oauthtest"
	"github.com/mcpbridge/mcpbridge/toolset/config"
)

// Behind OAuth a client is a user: the token's subject (or the claim the
// operator names) together with its app, not the app alone. Two users of
// one app each have their own sessions and rate limit, under the app's
// entry in "clients"; a token without the claim named is refused.
func TestOAuthClientsAreUsers(t *testing.T) {
	for _, claim := range []string{"", "email"} {
		t.Run("claim "+claim, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var n oauthtest.Network
				issuer := n.Start(oauthtest.Config{JWT: true})
				const resource = "https://gateway.example/mcp"
				g, err := gateway.Start(t.Context(), &config.Config{}, &gateway.Options{
					OAuth:   &gateway.OAuth{Issuer: issuer.URL, Resource: resource, HTTPClient: n.Client(), UserClaim: claim},
					Clients: map[string]gateway.Client{"desk": {RateLimit: &gateway.RateLimit{Rate: 1e-6, Burst: 2}}},
					Limits:  gateway.Limits{SessionsPerClient: 1},
				})
				if err != nil {
					t.Fatal(err)
				}
				defer g.Close()
				h := g.Handler()
				token := func(user string, change map[string]any) string {
					c := map[string]any{"iss": issuer.URL, "sub": user, "email": user + "@example.com", "client_id": "desk", "aud": resource,
						"iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()}
					maps.Copy(c, change)
					return issuer.Mint(c)
				}
				alice, bob := token("alice", nil), token("bob", nil)
				open := func(tok string) string {
					rec := httptest.NewRecorder()
					req := sessionRequest(t.Context(), "http://127.0.0.1/mcp", "", initialize)
					req.Header.Set("Authorization", "Bearer "+tok)
					h.ServeHTTP(rec, req)
					return rec.Body.String()
				}
				if got := open(alice); !strings.Contains(got, `"result"`) {
					t.Fatalf("alice's session: %s", got)
				}
				if got := open(bob); !strings.Contains(got, `"result"`) {
					t.Fatalf("bob's session, beside alice's: %s; want a session of his own", got)
				}
				if got := open(alice); !strings.Contains(got, "-31429") {
					t.Fatalf("alice's second session: %s; want it refused, one a user", got)
				}
				// alice spends the app's burst of 2, and more: bob's bucket
				// is his own.
				var refused bool
				for range 3 {
					refused = strings.Contains(listTools(h, alice).Body.String(), "-31429")
				}
				if !refused {
					t.Fatal("alice, over the app's limit, was not refused")
				}
				if rec := listTools(h, bob); rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), "-31429") {
					t.Fatalf("bob, under his own limit: %d %s", rec.Code, rec.Body)
				}
				if claim != "" {
					if rec := listTools(h, token("carol", map[string]any{claim: nil})); rec.Code != http.StatusUnauthorized {
						t.Fatalf("a token without the %s claim: %d, want 401", claim, rec.Code)
					}
				}
			})
		})
	}
}
