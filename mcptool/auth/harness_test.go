package auth

import (
	"bytes"
	"context"
	"crypto"
	"crypto/sha256"
	"encoding/base64"
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
	"time"

	"github.com/go-jose/go-jose/v4"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// oauthErr is an error answer of the test token endpoint.
type oauthErr struct {
	status      int
	code, descr string
}

// testServer is one loopback server playing both the authorization server
// (issuer = URL) and a protected MCP server at URL+"/mcp".
type testServer struct {
	*httptest.Server
	// Settings, fixed before use.
	authMethods []string                                      // token_endpoint_auth_methods_supported
	issParam    bool                                          // authorization_response_iss_parameter_supported
	expiresIn   int                                           // 0 = 3600
	refresh     bool                                          // issue refresh tokens
	keepRefresh bool                                          // but none in a refresh answer: the old one stays
	checkToken  func(r *http.Request, f url.Values) *oauthErr // judges a token request
	scopes      []string                                      // PRM scopes_supported
	toolScope   map[string]string                             // tool -> required scope
	dpop        bool                                          // require DPoP at both ends
	dpopNonce   bool                                          // and nonces
	wrongIss    bool                                          // authorize redirect carries a wrong iss
	issuer      *testServer                                   // the authorization server the metadata names, if not this one
	flipTo      *testServer                                   // named by every second read of the metadata
	forOthers   bool                                          // also serves the resources of servers that name it
	metaIssuer  string                                        // the issuer its metadata claims, if not its URL
	redirect    string                                        // where the token endpoint redirects to, if set

	requests atomic.Int32 // every request it received
	prmReads atomic.Int32 // reads of its protected resource metadata

	mu         sync.Mutex
	tokens     map[string][]string // access token -> scopes
	refreshes  map[string][]string // refresh token -> scopes
	n          int
	grants     []string // grant_type of each token request
	authScopes []string // scope of each authorization request
	challenge  string   // PKCE code_challenge of the last authorization
	asNonceHit bool
	rsNonceHit bool
	jtis       map[string]bool
}

func newTestServer(t *testing.T, configure func(*testServer)) *testServer {
	ts := startTestServer(configure)
	t.Cleanup(ts.Close)
	return ts
}

// startTestServer starts a testServer; the caller closes it.
func startTestServer(configure func(*testServer)) *testServer {
	ts := &testServer{tokens: map[string][]string{}, refreshes: map[string][]string{}, jtis: map[string]bool{}}
	if configure != nil {
		configure(ts)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	type in struct {
		Text string `json:"text"`
	}
	for _, name := range []string{"echo", "write"} {
		mcp.AddTool(srv, &mcp.Tool{Name: name}, func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + ":" + a.Text}}}, nil, nil
		})
	}
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true})

	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		as := ts.authServer()
		if ts.prmReads.Add(1)%2 == 0 && ts.flipTo != nil {
			as = ts.flipTo
		}
		writeJSON(w, 200, map[string]any{"resource": ts.URL + "/mcp", "authorization_servers": []string{as.URL}, "scopes_supported": ts.scopes})
	})
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		issuer := ts.URL
		if ts.metaIssuer != "" {
			issuer = ts.metaIssuer
		}
		m := map[string]any{
			"issuer":                                         issuer,
			"authorization_endpoint":                         ts.URL + "/authorize",
			"token_endpoint":                                 ts.URL + "/token",
			"registration_endpoint":                          ts.URL + "/register",
			"response_types_supported":                       []string{"code"},
			"code_challenge_methods_supported":               []string{"S256"},
			"token_endpoint_auth_methods_supported":          ts.authMethods,
			"authorization_response_iss_parameter_supported": ts.issParam,
		}
		if ts.dpop {
			m["dpop_signing_alg_values_supported"] = []string{"ES256"}
		}
		writeJSON(w, 200, m)
	})
	mux.HandleFunc("GET /authorize", ts.authorize)
	mux.HandleFunc("POST /token", ts.token)
	mux.HandleFunc("POST /register", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 201, map[string]any{"client_id": "dyn-client", "redirect_uris": []string{"http://127.0.0.1/cb"}, "token_endpoint_auth_method": "none"})
	})
	mux.Handle("/mcp", ts.protect(mcpHandler))
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ts.requests.Add(1)
		mux.ServeHTTP(w, r)
	}))
	return ts
}

// authServer is the authorization server ts's metadata names.
func (ts *testServer) authServer() *testServer {
	if ts.issuer != nil {
		return ts.issuer
	}
	return ts
}

// serves reports whether resource is one ts issues tokens for.
func (ts *testServer) serves(resource string) bool {
	return resource == ts.URL+"/mcp" || ts.forOthers && strings.HasSuffix(resource, "/mcp")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (ts *testServer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("code_challenge_method") != "S256" || !ts.serves(q.Get("resource")) {
		http.Error(w, "bad authorization request", 400)
		return
	}
	ts.mu.Lock()
	ts.challenge = q.Get("code_challenge")
	ts.authScopes = append(ts.authScopes, q.Get("scope"))
	ts.mu.Unlock()
	cb, _ := url.Parse(q.Get("redirect_uri"))
	v := url.Values{"code": {"code-" + q.Get("scope")}, "state": {q.Get("state")}}
	if ts.issParam {
		v.Set("iss", ts.URL)
	}
	if ts.wrongIss {
		v.Set("iss", "https://evil.example")
	}
	cb.RawQuery = v.Encode()
	http.Redirect(w, r, cb.String(), http.StatusFound)
}

func (ts *testServer) token(w http.ResponseWriter, r *http.Request) {
	if ts.redirect != "" {
		http.Redirect(w, r, ts.redirect, http.StatusTemporaryRedirect)
		return
	}
	r.ParseForm()
	f := r.PostForm
	ts.mu.Lock()
	ts.grants = append(ts.grants, f.Get("grant_type"))
	ts.mu.Unlock()
	fail := func(e *oauthErr) {
		writeJSON(w, e.status, map[string]string{"error": e.code, "error_description": e.descr})
	}
	var jkt string
	if ts.dpop {
		var err error
		jkt, err = ts.checkProof(r, "", ts.dpopNonce)
		if err == errNonce {
			ts.mu.Lock()
			ts.asNonceHit = true
			ts.mu.Unlock()
			w.Header().Set("DPoP-Nonce", "as-nonce")
			fail(&oauthErr{400, "use_dpop_nonce", "nonce required"})
			return
		}
		if err != nil {
			fail(&oauthErr{400, "invalid_dpop_proof", err.Error()})
			return
		}
	}
	// go-sdk's refresh (golang.org/x/oauth2) sends no resource.
	if !ts.serves(f.Get("resource")) && f.Get("grant_type") != GrantTokenExchange && f.Get("grant_type") != GrantRefreshToken {
		fail(&oauthErr{400, "invalid_target", "resource " + f.Get("resource")})
		return
	}
	scopes := strings.Fields(f.Get("scope"))
	switch f.Get("grant_type") {
	case "authorization_code":
		h := sha256.Sum256([]byte(f.Get("code_verifier")))
		ts.mu.Lock()
		ok := base64.RawURLEncoding.EncodeToString(h[:]) == ts.challenge
		ts.mu.Unlock()
		if !ok {
			fail(&oauthErr{400, "invalid_grant", "PKCE verifier does not match"})
			return
		}
		scopes = strings.Fields(strings.TrimPrefix(f.Get("code"), "code-"))
	case GrantRefreshToken:
		ts.mu.Lock()
		s, ok := ts.refreshes[f.Get("refresh_token")]
		ts.mu.Unlock()
		if !ok {
			fail(&oauthErr{400, "invalid_grant", "unknown refresh token"})
			return
		}
		scopes = s
	}
	if ts.checkToken != nil {
		if e := ts.checkToken(r, f); e != nil {
			fail(e)
			return
		}
	}
	ts.mu.Lock()
	ts.n++
	at := fmt.Sprintf("at-%d", ts.n)
	if jkt != "" {
		at += "." + jkt // the binding, readable by the resource check
	}
	ts.tokens[at] = scopes
	resp := map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": 3600, "scope": strings.Join(scopes, " ")}
	if ts.expiresIn != 0 {
		resp["expires_in"] = ts.expiresIn
	}
	if ts.dpop {
		resp["token_type"] = "DPoP"
	}
	if ts.refresh && !(ts.keepRefresh && f.Get("grant_type") == GrantRefreshToken) {
		rt := fmt.Sprintf("rt-%d", ts.n)
		ts.refreshes[rt] = scopes
		resp["refresh_token"] = rt
	}
	ts.mu.Unlock()
	writeJSON(w, 200, resp)
}

var errNonce = fmt.Errorf("nonce")

// checkProof verifies the DPoP proof of r (RFC 9449 section 4.3) and returns
// the key's thumbprint. With token, ath must match it.
func (ts *testServer) checkProof(r *http.Request, token string, wantNonce bool) (string, error) {
	p := r.Header.Values("DPoP")
	if len(p) != 1 {
		return "", fmt.Errorf("want one DPoP header, got %d", len(p))
	}
	jws, err := jose.ParseSigned(p[0], []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return "", err
	}
	h := jws.Signatures[0].Protected
	if h.ExtraHeaders["typ"] != "dpop+jwt" || h.JSONWebKey == nil || !h.JSONWebKey.IsPublic() {
		return "", fmt.Errorf("bad proof header")
	}
	payload, err := jws.Verify(h.JSONWebKey)
	if err != nil {
		return "", err
	}
	var c struct {
		JTI, HTM, HTU, Nonce, ATH string
		IAT                       int64
	}
	json.Unmarshal(payload, &c)
	if c.HTM != r.Method || c.HTU != ts.URL+r.URL.Path || c.JTI == "" || time.Since(time.Unix(c.IAT, 0)).Abs() > time.Minute {
		return "", fmt.Errorf("bad proof claims %+v", c)
	}
	ts.mu.Lock()
	dup := ts.jtis[c.JTI]
	ts.jtis[c.JTI] = true
	ts.mu.Unlock()
	if dup {
		return "", fmt.Errorf("replayed jti")
	}
	if token != "" {
		sum := sha256.Sum256([]byte(token))
		if c.ATH != base64.RawURLEncoding.EncodeToString(sum[:]) {
			return "", fmt.Errorf("bad ath")
		}
	}
	want := "as-nonce"
	if token != "" {
		want = "rs-nonce"
	}
	if wantNonce && c.Nonce != want {
		return "", errNonce
	}
	tp, _ := h.JSONWebKey.Thumbprint(crypto.SHA256)
	return base64.RawURLEncoding.EncodeToString(tp), nil
}

// protect is the MCP server's token check.
func (ts *testServer) protect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme := "Bearer"
		if ts.dpop {
			scheme = "DPoP"
		}
		meta := fmt.Sprintf(`resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, ts.URL)
		deny := func(status int, extra string) {
			w.Header().Set("WWW-Authenticate", scheme+" "+meta+extra)
			http.Error(w, "unauthorized", status)
		}
		a := r.Header.Get("Authorization")
		tok, ok := strings.CutPrefix(a, scheme+" ")
		as := ts.authServer()
		as.mu.Lock()
		scopes, valid := as.tokens[tok]
		as.mu.Unlock()
		if !ok || !valid {
			deny(401, "")
			return
		}
		if ts.dpop {
			jkt, err := ts.checkProof(r, tok, ts.dpopNonce)
			if err == errNonce {
				ts.mu.Lock()
				ts.rsNonceHit = true
				ts.mu.Unlock()
				w.Header().Set("DPoP-Nonce", "rs-nonce")
				deny(401, `, error="use_dpop_nonce"`)
				return
			}
			if err != nil || !strings.HasSuffix(tok, "."+jkt) {
				deny(401, `, error="invalid_token"`)
				return
			}
		}
		if r.Method == http.MethodPost && ts.toolScope != nil {
			var msg struct {
				Method string
				Params struct{ Name string }
			}
			body, _ := readAndRestore(r)
			json.Unmarshal(body, &msg)
			if need := ts.toolScope[msg.Params.Name]; msg.Method == "tools/call" && need != "" && !slices.Contains(scopes, need) {
				deny(403, fmt.Sprintf(`, error="insufficient_scope", scope="%s"`, strings.Join(append(slices.Clone(scopes), need), " ")))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (ts *testServer) grantTypes() []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return slices.Clone(ts.grants)
}

// callTool connects to ts's MCP endpoint with h and calls tool.
func callTool(ctx context.Context, ts *testServer, h sdkauth.OAuthHandler, client *http.Client, tools ...string) ([]string, error) {
	tr := &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", OAuthHandler: h, HTTPClient: client}
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil)
	cs, err := c.Connect(ctx, tr, nil)
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
		out = append(out, res.Content[0].(*mcp.TextContent).Text)
	}
	return out, nil
}

// followRedirect is the test's Authorizer: it visits the authorization URL
// and reads the code from the redirect, as a browser would deliver it.
func followRedirect(ctx context.Context, authURL string) (*Callback, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		return nil, fmt.Errorf("authorization endpoint answered %d", resp.StatusCode)
	}
	loc, err := resp.Location()
	if err != nil {
		return nil, err
	}
	return ParseCallback(loc)
}

func readAndRestore(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b, err
}

func newHTTPServer(t *testing.T, h http.Handler) *httptest.Server {
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}
