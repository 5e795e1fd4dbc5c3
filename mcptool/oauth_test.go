package mcptool_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/mcptool/auth"
)

// A demo server behind OAuth: a client-credentials grant through
// WithOAuth gets the token that opens it.
func TestWithOAuth(t *testing.T) {
	var tokens atomic.Int32
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	writeJSON := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"resource": srv.URL + "/mcp", "authorization_servers": []string{srv.URL}})
	})
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"issuer": srv.URL, "token_endpoint": srv.URL + "/token",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"client_secret_basic"}})
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		id, secret, ok := r.BasicAuth()
		if !ok || id != "agent" || secret != "s3cret" || r.FormValue("grant_type") != "client_credentials" {
			w.WriteHeader(http.StatusUnauthorized)
			writeJSON(w, map[string]string{"error": "invalid_client"})
			return
		}
		tokens.Add(1)
		writeJSON(w, map[string]any{"access_token": "good-token", "token_type": "Bearer", "expires_in": 3600})
	})
	protected := demo.HTTPHandler()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer good-token" {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		protected.ServeHTTP(w, r)
	})

	h, err := auth.NewClientCredentials(auth.ClientCredentialsConfig{Client: auth.ClientSecretBasic("agent", "s3cret")})
	if err != nil {
		t.Fatal(err)
	}
	p := mcptool.FromURL(srv.URL+"/mcp", mcptool.WithOAuth(h))
	t.Cleanup(func() { p.Close() })
	connect(t, p)
	if got := call(t, p.Handler(), "add_note", `{"title":"authorized","body":"b"}`).Text(); !strings.Contains(got, "added note #1") {
		t.Fatalf("call: %q", got)
	}
	if tokens.Load() != 1 {
		t.Fatalf("%d token requests, want 1 (cached)", tokens.Load())
	}

	// A wrong secret fails Connect without showing the secret.
	bad, _ := auth.NewClientCredentials(auth.ClientCredentialsConfig{Client: auth.ClientSecretBasic("agent", "wr0ng-secret")})
	p2 := mcptool.FromURL(srv.URL+"/mcp", mcptool.WithOAuth(bad), mcptool.WithName("locked"))
	err = p2.Connect(context.Background())
	if err == nil || strings.Contains(err.Error(), "wr0ng-secret") || !strings.Contains(err.Error(), `server "locked"`) {
		t.Fatalf("got %v; want an error naming the server, without the secret", err)
	}
	// OAuth over the legacy SSE transport is refused up front.
	err = mcptool.FromURL(srv.URL+"/sse", mcptool.WithOAuth(h)).Connect(context.Background())
	var ce *mcptool.ConfigError
	if !errors.As(err, &ce) || ce.Option != "oauth" {
		t.Fatalf("OAuth over SSE: %v", err)
	}
}
