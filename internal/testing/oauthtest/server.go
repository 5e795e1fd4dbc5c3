package oauthtest

import (
	"bytes"
	"cmp"
	"context"
	"crypto"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Config says how a [Server] behaves.
type Config struct {
	// MCP is the MCP server guarded at /mcp. Nil means an in-process go-sdk
	// server with the tools "echo" and "write", which answer
	// {"text": "hi"} with "echo:hi" and "write:hi".
	MCP http.Handler
	// Issuer is the authorization server the MCP server's protected
	// resource metadata names; nil means this Server. The Server named
	// issues tokens for this one's resource too.
	Issuer *Server
	// FlipTo, if set, is named instead of Issuer by every second read of
	// the metadata.
	FlipTo *Server
	// Scopes is the metadata's scopes_supported.
	Scopes []string
	// ToolScopes maps a tool to the scope a tools/call of it needs; a token
	// without it gets 403 insufficient_scope naming the scopes it needs.
	ToolScopes map[string]string

	// AuthMethods is the token_endpoint_auth_methods_supported the
	// authorization server advertises; with Clients or Keys, a token
	// request must use one of them.
	AuthMethods []string
	// Clients, if set, maps the client IDs the token endpoint accepts to
	// their secrets, sent by client_secret_basic or client_secret_post.
	Clients map[string]string
	// Keys, if set, maps client IDs to the public keys that verify their
	// private_key_jwt assertions (iss and sub the ID, aud the issuer or the
	// token endpoint, not expired). Without Clients and Keys, any client is
	// accepted.
	Keys map[string]crypto.PublicKey
	// Check, if set, judges each token request after the built-in checks;
	// a non-nil Refusal is the answer.
	Check func(r *http.Request, form url.Values) *Refusal
	// ExpiresIn is the tokens' lifetime in seconds; zero means 3600.
	ExpiresIn int
	// Refresh issues refresh tokens. KeepRefresh puts none in the answer to
	// a refresh, so that the client keeps the one it has.
	Refresh, KeepRefresh bool
	// IssParam advertises and sends the RFC 9207 iss parameter. WrongIss
	// sends a wrong one.
	IssParam, WrongIss bool
	// DPoP requires DPoP proofs at both ends and binds the tokens to the
	// key; DPoPNonce also requires server nonces.
	DPoP, DPoPNonce bool
	// MetaIssuer is the issuer the authorization server metadata claims, if
	// not the Server's URL (an RFC 8414 section 3.3 mismatch).
	MetaIssuer string
	// TokenEndpoint, if set, is the token endpoint the authorization server
	// metadata names instead of the Server's own.
	TokenEndpoint string
	// Redirect, if set, is where the token endpoint redirects every request.
	Redirect string
	// JWT issues access tokens as JWTs (RFC 9068) signed with the server's
	// current key ([Server.Mint]), whose set it serves at /jwks, the
	// jwks_uri of its metadata: iss its URL, sub and client_id the client,
	// aud the resource asked for, scope, iat, exp and jti.
	JWT bool
}

// Refusal is an OAuth error answer (RFC 6749 section 5.2).
type Refusal struct {
	Status      int
	Code        string
	Description string
}

// A Server is an authorization server and a protected MCP server; see the
// package doc. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL: the issuer, and the MCP endpoint's URL + "/mcp".
	URL string
	// Requests counts the requests the server received.
	Requests atomic.Int32
	// Tokens counts the access tokens it issued.
	Tokens atomic.Int32

	cfg   Config
	close func()

	mu         sync.Mutex
	resources  []string            // the resources it issues tokens for
	tokens     map[string][]string // access token -> scopes
	refreshes  map[string][]string // refresh token -> scopes
	grants     []string            // grant_type of each token request
	authScopes []string            // scope of each authorization request
	challenge  string              // PKCE code_challenge of the last authorization
	jtis       map[string]bool     // DPoP proof IDs seen
	served     map[string]int      // path -> requests, "nonce " + path -> nonce challenges

	keysMu sync.Mutex
	keys   []signingKey // the JWT signing keys, the current one last (jwt.go)
}

// Start serves cfg on a loopback port until Close.
func Start(cfg Config) *Server {
	s := newServer(cfg)
	srv := httptest.NewServer(s.handler())
	s.URL, s.close = srv.URL, srv.Close
	s.init()
	return s
}

// New is [Start], closed when the test ends.
func New(t testing.TB, cfg Config) *Server {
	s := Start(cfg)
	t.Cleanup(s.Close)
	return s
}

// Close stops a Server that Start started; for a [Network]'s, it does nothing.
func (s *Server) Close() {
	if s.close != nil {
		s.close()
	}
}

func newServer(cfg Config) *Server {
	return &Server{cfg: cfg, tokens: map[string][]string{}, refreshes: map[string][]string{}, jtis: map[string]bool{}, served: map[string]int{}}
}

// init runs once s has its URL.
func (s *Server) init() {
	for _, as := range []*Server{s.authServer(), s.cfg.FlipTo} {
		if as != nil {
			as.mu.Lock()
			as.resources = append(as.resources, s.URL+"/mcp")
			as.mu.Unlock()
		}
	}
}

func (s *Server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", s.resourceMetadata)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.serverMetadata)
	mux.HandleFunc("GET /authorize", s.authorize)
	mux.HandleFunc("POST /token", s.token)
	mux.HandleFunc("GET /jwks", s.jwks)
	mux.HandleFunc("POST /register", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusCreated, map[string]any{"client_id": "dyn-client", "redirect_uris": []string{"http://127.0.0.1/cb"}, "token_endpoint_auth_method": "none"})
	})
	guarded := s.cfg.MCP
	if guarded == nil {
		guarded = echoServer()
	}
	mux.Handle("/mcp", s.protect(guarded))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Requests.Add(1)
		s.count(r.URL.Path)
		mux.ServeHTTP(w, r)
	})
}

// echoServer is the default MCP server.
func echoServer() http.Handler {
	srv := mcp.NewServer(&mcp.Implementation{Name: "oauthtest", Version: "1"}, nil)
	type in struct {
		Text string `json:"text"`
	}
	for _, name := range []string{"echo", "write"} {
		mcp.AddTool(srv, &mcp.Tool{Name: name}, func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + ":" + a.Text}}}, nil, nil
		})
	}
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true})
}

// authServer is the authorization server s's metadata names.
func (s *Server) authServer() *Server {
	if s.cfg.Issuer != nil {
		return s.cfg.Issuer
	}
	return s
}

func (s *Server) resourceMetadata(w http.ResponseWriter, r *http.Request) {
	as := s.authServer()
	if s.cfg.FlipTo != nil && s.Served(r.URL.Path)%2 == 0 {
		as = s.cfg.FlipTo
	}
	writeJSON(w, http.StatusOK, map[string]any{"resource": s.URL + "/mcp", "authorization_servers": []string{as.URL}, "scopes_supported": s.cfg.Scopes})
}

func (s *Server) serverMetadata(w http.ResponseWriter, r *http.Request) {
	issuer := s.URL
	if s.cfg.MetaIssuer != "" {
		issuer = s.cfg.MetaIssuer
	}
	m := map[string]any{
		"issuer":                                         issuer,
		"authorization_endpoint":                         s.URL + "/authorize",
		"token_endpoint":                                 cmp.Or(s.cfg.TokenEndpoint, s.URL+"/token"),
		"registration_endpoint":                          s.URL + "/register",
		"response_types_supported":                       []string{"code"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          s.cfg.AuthMethods,
		"authorization_response_iss_parameter_supported": s.cfg.IssParam,
		"jwks_uri":                                       s.URL + "/jwks",
	}
	if s.cfg.DPoP {
		m["dpop_signing_alg_values_supported"] = []string{"ES256"}
	}
	writeJSON(w, http.StatusOK, m)
}

// authorize grants every authorization request at once, as a user who
// consents, redirecting with a code that carries the scope asked for.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("code_challenge_method") != "S256" || !s.serves(q.Get("resource")) {
		http.Error(w, "bad authorization request", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.challenge = q.Get("code_challenge")
	s.authScopes = append(s.authScopes, q.Get("scope"))
	s.mu.Unlock()
	cb, err := url.Parse(q.Get("redirect_uri"))
	if err != nil {
		http.Error(w, "bad redirect_uri", http.StatusBadRequest)
		return
	}
	v := url.Values{"code": {"code-" + q.Get("scope")}, "state": {q.Get("state")}}
	if s.cfg.IssParam {
		v.Set("iss", s.URL)
	}
	if s.cfg.WrongIss {
		v.Set("iss", "https://evil.example")
	}
	cb.RawQuery = v.Encode()
	http.Redirect(w, r, cb.String(), http.StatusFound)
}

// serves reports whether s issues tokens for resource.
func (s *Server) serves(resource string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return resource == s.URL+"/mcp" || slices.Contains(s.resources, resource)
}

// protect is the MCP server's token check.
func (s *Server) protect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme := "Bearer"
		if s.cfg.DPoP {
			scheme = "DPoP"
		}
		deny := func(status int, extra string) {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`%s resource_metadata="%s/.well-known/oauth-protected-resource/mcp"%s`, scheme, s.URL, extra))
			http.Error(w, "unauthorized", status)
		}
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), scheme+" ")
		scopes, valid := s.authServer().scopes(tok)
		if !ok || !valid {
			deny(http.StatusUnauthorized, "")
			return
		}
		if s.cfg.DPoP {
			jkt, err := s.checkProof(r, tok)
			if err == errNonce {
				s.count("nonce " + r.URL.Path)
				w.Header().Set("DPoP-Nonce", "rs-nonce")
				deny(http.StatusUnauthorized, `, error="use_dpop_nonce"`)
				return
			}
			if err != nil || !strings.HasSuffix(tok, "."+jkt) {
				deny(http.StatusUnauthorized, `, error="invalid_token"`)
				return
			}
		}
		if r.Method == http.MethodPost && s.cfg.ToolScopes != nil {
			var msg struct {
				Method string
				Params struct{ Name string }
			}
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			json.Unmarshal(body, &msg)
			if need := s.cfg.ToolScopes[msg.Params.Name]; msg.Method == "tools/call" && need != "" && !slices.Contains(scopes, need) {
				deny(http.StatusForbidden, fmt.Sprintf(`, error="insufficient_scope", scope="%s"`, strings.Join(append(slices.Clone(scopes), need), " ")))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// scopes returns the scopes of an access token s issued.
func (s *Server) scopes(token string) ([]string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	scopes, ok := s.tokens[token]
	return scopes, ok
}

func (s *Server) count(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.served[key]++
}

// Served returns how many requests for path s received.
func (s *Server) Served(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.served[path]
}

// NonceChallenges returns how many requests for path s answered with a
// DPoP nonce challenge.
func (s *Server) NonceChallenges(path string) int { return s.Served("nonce " + path) }

// Grants returns the grant_type of each token request s received, in order.
func (s *Server) Grants() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.grants)
}

// AuthorizationScopes returns the scope of each authorization request s
// received, in order.
func (s *Server) AuthorizationScopes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.authScopes)
}

// Call connects to s's MCP endpoint through an mcp.StreamableClientTransport
// with h as its OAuthHandler and client as its HTTPClient (nil means
// http.DefaultClient), calls each tool with {"text": "hi"} and returns the
// texts they answered.
func (s *Server) Call(ctx context.Context, h sdkauth.OAuthHandler, client *http.Client, tools ...string) ([]string, error) {
	transport := &mcp.StreamableClientTransport{Endpoint: s.URL + "/mcp", OAuthHandler: h, HTTPClient: client}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "oauthtest", Version: "1"}, nil).Connect(ctx, transport, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	var out []string
	for _, tool := range tools {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"text": "hi"}})
		if err != nil {
			return out, err
		}
		text := ""
		if len(res.Content) > 0 {
			if t, ok := res.Content[0].(*mcp.TextContent); ok {
				text = t.Text
			}
		}
		out = append(out, text)
	}
	return out, nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
