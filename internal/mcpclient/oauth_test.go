package mcpclient_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/testing/oauthtest"
	"github.com/mcpbridge/mcpbridge/mcptool/oauth"
)

// A demo server behind OAuth: a client-credentials grant through
// WithOAuth gets the token that opens it.
func TestWithOAuth(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Config{MCP: demo.HTTPHandler(), AuthMethods: []string{"client_secret_basic"}, Clients: map[string]string{"agent": "s3cret"}})
	h, err := oauth.NewClientCredentials(oauth.ClientCredentialsConfig{Client: oauth.ClientAuth{ID: "agent", Secret: "s3cret"}})
	if err != nil {
		t.Fatal(err)
	}
	p := connectURL(t, srv.URL+"/mcp", mcpclient.WithOAuth(h))
	if got := call(t, p.Handler(), "add_note", `{"title":"authorized","body":"b"}`).Text(); !strings.Contains(got, "added note #1") {
		t.Fatalf("call: %q", got)
	}
	if srv.Tokens.Load() != 1 {
		t.Fatalf("%d token requests, want 1 (cached)", srv.Tokens.Load())
	}

	// A wrong secret fails Connect without showing the secret.
	bad, _ := oauth.NewClientCredentials(oauth.ClientCredentialsConfig{Client: oauth.ClientAuth{ID: "agent", Secret: "wr0ng-secret"}})
	p2 := mcpclient.FromURL(srv.URL+"/mcp", mcpclient.WithOAuth(bad), mcpclient.WithName("locked"))
	err = p2.Connect(context.Background())
	if err == nil || strings.Contains(err.Error(), "wr0ng-secret") || !strings.Contains(err.Error(), `server "locked"`) {
		t.Fatalf("got %v; want an error naming the server, without the secret", err)
	}
	// OAuth over the legacy SSE transport is refused up front.
	err = mcpclient.FromURL(srv.URL+"/sse", mcpclient.WithOAuth(h)).Connect(context.Background())
	var ce *mcpclient.ConfigError
	if !errors.As(err, &ce) || ce.Option != "oauth" {
		t.Fatalf("OAuth over SSE: %v", err)
	}
}

// A handler with a DPoP key needs nothing more: the provider adds the
// proofs to every request, through the HTTP client it was given or its own,
// and a server that binds tokens (and asks for nonces) takes them.
func TestWithOAuthDPoP(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Config{MCP: demo.HTTPHandler(), DPoP: true, DPoPNonce: true, Clients: map[string]string{"agent": "s3cret"}})
	for _, client := range []*http.Client{nil, {Transport: http.DefaultTransport}} {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		h, err := oauth.NewClientCredentials(oauth.ClientCredentialsConfig{Client: oauth.ClientAuth{ID: "agent", Secret: "s3cret"}, Options: oauth.Options{DPoP: key}})
		if err != nil {
			t.Fatal(err)
		}
		opts := []mcpclient.Option{mcpclient.WithOAuth(h)}
		if client != nil {
			opts = append(opts, mcpclient.WithHTTPClient(client))
		}
		p := connectURL(t, srv.URL+"/mcp", opts...)
		if got := call(t, p.Handler(), "add_note", `{"title":"bound","body":"b"}`).Text(); !strings.Contains(got, "added note") {
			t.Fatalf("client %v: call: %q", client, got)
		}
	}
	if n := srv.NonceChallenges("/mcp"); n != 2 {
		t.Errorf("%d nonce challenges at the MCP server, want one per provider", n)
	}
}
