// Package oauthtest is a loopback OAuth authorization server guarding an MCP
// handler, for tests of the hosts that must obtain a token first.
package oauthtest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// Token is the access token the server issues and the guarded handler takes.
const Token = "oauthtest-token"

// A Server is an authorization server (protected-resource and
// authorization-server metadata, a token endpoint) and, at /mcp, the
// guarded MCP handler, which answers 401 with the resource metadata's
// address until a request carries the token.
type Server struct {
	// URL is the server's base URL; the MCP endpoint is URL + "/mcp".
	URL string
	// Tokens counts the tokens issued.
	Tokens atomic.Int32
	// Requests counts every request the server received.
	Requests atomic.Int32
}

// New starts a Server, closed when the test ends. methods are the token
// endpoint's client authentication methods to advertise; grant decides
// whether a token request gets the token.
func New(t testing.TB, guarded http.Handler, methods []string, grant func(*http.Request) bool) *Server {
	s, mux := start(t)
	s.protect(mux, guarded, s)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"issuer": s.URL, "token_endpoint": s.URL + "/token",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
			"token_endpoint_auth_methods_supported": methods})
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		if !grant(r) {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
			return
		}
		s.Tokens.Add(1)
		writeJSON(w, http.StatusOK, map[string]any{"access_token": Token, "token_type": "Bearer", "expires_in": 3600})
	})
	return s
}

// NewResource starts a Server, closed when the test ends, that is an MCP
// server only: its protected resource metadata names as, on another
// origin, as its authorization server.
func NewResource(t testing.TB, guarded http.Handler, as *Server) *Server {
	s, mux := start(t)
	s.protect(mux, guarded, as)
	return s
}

// start starts an empty Server that counts its requests.
func start(t testing.TB) (*Server, *http.ServeMux) {
	s := &Server{}
	mux := http.NewServeMux()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Requests.Add(1)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s, mux
}

// protect serves guarded at /mcp and the resource metadata naming as.
func (s *Server) protect(mux *http.ServeMux, guarded http.Handler, as *Server) {
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"resource": s.URL + "/mcp", "authorization_servers": []string{as.URL}})
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+Token {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+s.URL+`/.well-known/oauth-protected-resource/mcp"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		guarded.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
