package auth

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestAuthorizationCode(t *testing.T) {
	ts := newTestServer(t, func(ts *testServer) {
		ts.scopes = []string{"read"}
		ts.toolScope = map[string]string{"write": "write"}
		ts.issParam = true
		ts.refresh = true
		ts.expiresIn = 1 // renewed after half its lifetime
		ts.authMethods = []string{"none"}
	})
	var later atomic.Int64 // how far the test moved the clock on
	h, err := NewAuthorizationCode(AuthorizationCodeConfig{
		Authorizer:  AuthorizerFunc(followRedirect),
		RedirectURL: "http://127.0.0.1/cb",
		Client:      PublicClient("cli"),
		Options:     Options{now: func() time.Time { return time.Now().Add(time.Duration(later.Load())) }},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	got, err := callTool(ctx, ts, h, nil, "echo", "write")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"echo:hi", "write:hi"}) {
		t.Errorf("results %q", got)
	}
	// Step-up: the second authorization asks for the granted and the challenged scope.
	second := strings.Fields(ts.authScopes[len(ts.authScopes)-1])
	slices.Sort(second)
	if want := []string{"read", "write"}; len(ts.authScopes) != 2 || ts.authScopes[0] != "read" || !slices.Equal(second, want) {
		t.Errorf("authorization scopes %q, want %q", ts.authScopes, want)
	}
	later.Store(int64(600 * time.Millisecond)) // past half the token's second
	if _, err := callTool(ctx, ts, h, nil, "echo"); err != nil {
		t.Fatal(err)
	}
	if g := ts.grantTypes(); !slices.Contains(g, "refresh_token") {
		t.Errorf("grants %q: no refresh", g)
	}
	if len(ts.authScopes) != 2 {
		t.Errorf("user asked %d times, want 2", len(ts.authScopes))
	}
}

func TestAuthorizationCodeIssuerMismatch(t *testing.T) {
	ts := newTestServer(t, func(ts *testServer) { ts.issParam = true; ts.wrongIss = true })
	h, err := NewAuthorizationCode(AuthorizationCodeConfig{
		Authorizer:  AuthorizerFunc(followRedirect),
		RedirectURL: "http://127.0.0.1/cb",
		Client:      ClientSecret("cli", "code-secret-123"),
		Options:     Options{Issuer: ts.URL},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = callTool(testCtx(t), ts, h, nil, "echo")
	var e *Error
	if !errors.As(err, &e) || e.Step != StepAuthorization || !strings.Contains(err.Error(), "issuer") {
		t.Fatalf("err = %v, want an authorization step error about the issuer", err)
	}
	if strings.Contains(err.Error(), "code-secret-123") {
		t.Error("secret in error")
	}
	if g := ts.grantTypes(); len(g) != 0 {
		t.Errorf("token requests %q after an issuer mismatch", g)
	}
}

func TestClientCredentialsSecret(t *testing.T) {
	for _, method := range []string{"client_secret_basic", "client_secret_post"} {
		t.Run(method, func(t *testing.T) {
			ts := newTestServer(t, func(ts *testServer) {
				ts.authMethods = []string{method}
				ts.scopes = []string{"read"}
				ts.checkToken = func(r *http.Request, f url.Values) *oauthErr {
					id, secret, basic := r.BasicAuth()
					id, _ = url.QueryUnescape(id)
					secret, _ = url.QueryUnescape(secret)
					if method == "client_secret_post" {
						id, secret = f.Get("client_id"), f.Get("client_secret")
						basic = r.Header.Get("Authorization") != ""
					}
					if f.Get("grant_type") != GrantClientCredentials || f.Get("scope") != "read" ||
						id != "svc" || secret != "s3cr3t:/+" || (method == "client_secret_basic") != basic {
						return &oauthErr{401, "invalid_client", "bad client authentication"}
					}
					return nil
				}
			})
			ca := ClientSecretBasic("svc", "s3cr3t:/+")
			if method == "client_secret_post" {
				ca = ClientSecretPost("svc", "s3cr3t:/+")
			}
			store := NewMemoryStore()
			h, err := NewClientCredentials(ClientCredentialsConfig{Client: ca, Options: Options{Store: store}})
			if err != nil {
				t.Fatal(err)
			}
			ctx := testCtx(t)
			if _, err := callTool(ctx, ts, h, nil, "echo", "echo"); err != nil {
				t.Fatal(err)
			}
			if _, err := callTool(ctx, ts, h, nil, "echo"); err != nil {
				t.Fatal(err)
			}
			// A new handler sharing the store reuses the stored token.
			h2, _ := NewClientCredentials(ClientCredentialsConfig{Client: ca, Options: Options{Store: store}})
			if _, err := callTool(ctx, ts, h2, nil, "echo"); err != nil {
				t.Fatal(err)
			}
			if g := ts.grantTypes(); len(g) != 1 {
				t.Errorf("%d token requests (%q), want 1 (cached, then stored)", len(g), g)
			}
		})
	}
}

func TestClientCredentialsSecretNeverShown(t *testing.T) {
	const secret = "very-secret-value-42"
	ts := newTestServer(t, func(ts *testServer) {
		ts.checkToken = func(*http.Request, url.Values) *oauthErr {
			return &oauthErr{401, "invalid_client", "client authentication failed"}
		}
	})
	var logs bytes.Buffer
	ca := ClientSecretPost("svc", secret)
	h, err := NewClientCredentials(ClientCredentialsConfig{Client: ca, Options: Options{
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}})
	if err != nil {
		t.Fatal(err)
	}
	slog.New(slog.NewTextHandler(&logs, nil)).Info("config", "client", ca)
	_, err = callTool(testCtx(t), ts, h, nil, "echo")
	var e *Error
	if !errors.As(err, &e) || e.Step != StepTokenRequest || e.Code != "invalid_client" || e.Status != 401 {
		t.Fatalf("err = %v, want a token request error with invalid_client", err)
	}
	if !strings.Contains(err.Error(), "client credentials: token request: invalid_client (client authentication failed)") {
		t.Errorf("error text %q", err)
	}
	for what, s := range map[string]string{"error": err.Error(), "logs": logs.String(), "%v": fmtAll(ca)} {
		if strings.Contains(s, secret) {
			t.Errorf("secret appears in %s: %s", what, s)
		}
	}
	if !strings.Contains(logs.String(), "discovered") {
		t.Errorf("no debug log: %s", logs.String())
	}
}

func fmtAll(v any) string {
	var b strings.Builder
	for _, f := range []string{"%v", "%+v", "%#v", "%s"} {
		b.WriteString(fmt.Sprintf(f, v))
	}
	return b.String()
}

func TestPrivateKeyJWT(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	for _, aud := range []string{AudienceIssuer, AudienceTokenEndpoint} {
		t.Run(aud, func(t *testing.T) {
			var ts *testServer
			ts = newTestServer(t, func(s *testServer) {
				s.authMethods = []string{"private_key_jwt"}
				s.checkToken = func(r *http.Request, f url.Values) *oauthErr {
					bad := func(why string) *oauthErr { return &oauthErr{401, "invalid_client", why} }
					if f.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" || f.Get("client_secret") != "" {
						return bad("assertion type")
					}
					jws, err := jose.ParseSigned(f.Get("client_assertion"), []jose.SignatureAlgorithm{jose.ES256})
					if err != nil {
						return bad(err.Error())
					}
					if jws.Signatures[0].Header.KeyID != "k1" {
						return bad("kid")
					}
					payload, err := jws.Verify(&key.PublicKey)
					if err != nil {
						return bad("signature")
					}
					var c struct {
						Iss, Sub, Aud, Jti string
						Exp, Iat           int64
					}
					json.Unmarshal(payload, &c)
					wantAud := ts.URL
					if aud == AudienceTokenEndpoint {
						wantAud = ts.URL + "/token"
					}
					if c.Iss != "jwt-client" || c.Sub != "jwt-client" || c.Aud != wantAud || c.Jti == "" || c.Exp <= time.Now().Unix() {
						return bad("claims")
					}
					return nil
				}
			})
			signer, err := ParsePrivateKeyPEM(pemKey)
			if err != nil {
				t.Fatal(err)
			}
			pk := &PrivateKeyJWT{ID: "jwt-client", Key: signer, KeyID: "k1", Audience: aud}
			h, err := NewClientCredentials(ClientCredentialsConfig{Client: pk})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := callTool(testCtx(t), ts, h, nil, "echo"); err != nil {
				t.Fatal(err)
			}
			if s := fmtAll(pk); strings.Contains(s, "D:") || !strings.Contains(s, "jwt-client") {
				t.Errorf("formatted key: %s", s)
			}
		})
	}
}

func TestJWTBearer(t *testing.T) {
	const assertion = "eyJhbGciOiJFUzI1NiJ9.workload-identity.sig"
	path := filepath.Join(t.TempDir(), "token")
	os.WriteFile(path, []byte(assertion+"\n"), 0o600)
	reject := false
	ts := newTestServer(t, func(ts *testServer) {
		ts.authMethods = []string{"none"}
		ts.checkToken = func(r *http.Request, f url.Values) *oauthErr {
			if reject {
				return &oauthErr{400, "invalid_grant", "assertion expired"}
			}
			if f.Get("grant_type") != GrantJWTBearer || f.Get("assertion") != assertion || f.Get("client_id") != "wl" {
				return &oauthErr{400, "invalid_request", "bad jwt-bearer request"}
			}
			return nil
		}
	})
	h, err := NewJWTBearer(JWTBearerConfig{Assertion: AssertionFromFile(path), Client: PublicClient("wl")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := callTool(testCtx(t), ts, h, nil, "echo"); err != nil {
		t.Fatal(err)
	}

	reject = true
	h, _ = NewJWTBearer(JWTBearerConfig{Assertion: AssertionFromFile(path), Client: PublicClient("wl")})
	_, err = callTool(testCtx(t), ts, h, nil, "echo")
	var e *Error
	if !errors.As(err, &e) || e.Code != "invalid_grant" || e.Step != StepTokenRequest {
		t.Fatalf("err = %v, want invalid_grant at the token request", err)
	}
	if strings.Contains(err.Error(), assertion) {
		t.Error("assertion in error")
	}
	if g := ts.grantTypes(); len(g) != 2 {
		t.Errorf("token requests %q: a refused grant must not be retried", g)
	}

	_, err = callTool(testCtx(t), ts, mustJWTBearer(t, filepath.Join(t.TempDir(), "missing")), nil, "echo")
	if !errors.As(err, &e) || e.Step != StepAssertion {
		t.Errorf("missing file: err = %v", err)
	}
}

func mustJWTBearer(t *testing.T, path string) *grantHandler {
	h, err := NewJWTBearer(JWTBearerConfig{Assertion: AssertionFromFile(path), Client: PublicClient("wl")})
	if err != nil {
		t.Fatal(err)
	}
	return h.(*grantHandler)
}

func TestEnterprise(t *testing.T) {
	const idToken = "id-token-of-alice"
	var ts *testServer
	var jag string
	ts = newTestServer(t, func(s *testServer) {
		s.authMethods = []string{"client_secret_basic"}
		s.scopes = []string{"read"}
		s.checkToken = func(r *http.Request, f url.Values) *oauthErr {
			id, secret, _ := r.BasicAuth()
			if id != "mcp-client" || secret != "mcp-secret" {
				return &oauthErr{401, "invalid_client", "bad MCP client"}
			}
			if f.Get("grant_type") != GrantJWTBearer || f.Get("assertion") != jag || jag == "" {
				return &oauthErr{400, "invalid_grant", "bad ID-JAG"}
			}
			return nil
		}
	})
	idp := http.NewServeMux()
	idp.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		f := r.PostForm
		if f.Get("grant_type") != GrantTokenExchange || f.Get("requested_token_type") != TokenTypeIDJAG ||
			f.Get("subject_token") != idToken || f.Get("subject_token_type") != TokenTypeIDToken ||
			f.Get("audience") != ts.URL || f.Get("resource") != ts.URL+"/mcp" || f.Get("scope") != "read" ||
			f.Get("client_id") != "idp-client" || f.Get("client_secret") != "idp-secret" {
			writeJSON(w, 400, map[string]string{"error": "invalid_request", "error_description": "bad exchange " + f.Encode()})
			return
		}
		jag = "jag-" + f.Get("audience")
		writeJSON(w, 200, map[string]any{"access_token": jag, "issued_token_type": TokenTypeIDJAG, "token_type": "N_A", "expires_in": 300})
	})
	idpSrv := newHTTPServer(t, idp)
	h, err := NewEnterprise(EnterpriseConfig{
		IdPTokenEndpoint: idpSrv.URL + "/token",
		IdPClient:        ClientSecretPost("idp-client", "idp-secret"),
		SubjectToken: func(context.Context) (string, string, error) {
			return idToken, TokenTypeIDToken, nil
		},
		Client: ClientSecretBasic("mcp-client", "mcp-secret"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := callTool(testCtx(t), ts, h, nil, "echo"); err != nil {
		t.Fatal(err)
	}

	// A refused exchange names the step and hides the subject token.
	h, _ = NewEnterprise(EnterpriseConfig{
		IdPTokenEndpoint: idpSrv.URL + "/token",
		IdPClient:        ClientSecretPost("idp-client", "wrong"),
		SubjectToken:     func(context.Context) (string, string, error) { return idToken, TokenTypeIDToken, nil },
		Client:           ClientSecretBasic("mcp-client", "mcp-secret"),
	})
	_, err = callTool(testCtx(t), ts, h, nil, "echo")
	var e *Error
	if !errors.As(err, &e) || e.Step != StepTokenExchange || e.Code != "invalid_request" {
		t.Fatalf("err = %v", err)
	}
}

func TestDPoP(t *testing.T) {
	for _, nonce := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "nonce"}[nonce], func(t *testing.T) {
			ts := newTestServer(t, func(ts *testServer) {
				ts.dpop, ts.dpopNonce = true, nonce
				ts.authMethods = []string{"client_secret_basic"}
			})
			d, client, h := dpopClientCredentials(t)
			if _, err := callTool(testCtx(t), ts, h, client, "echo", "echo"); err != nil {
				t.Fatal(err)
			}
			if nonce && (!ts.asNonceHit || !ts.rsNonceHit) {
				t.Errorf("nonce challenges: AS %v, RS %v", ts.asNonceHit, ts.rsNonceHit)
			}
			if len(d.Thumbprint()) != 43 {
				t.Errorf("thumbprint %q", d.Thumbprint())
			}
		})
	}
}

// dpopClientCredentials returns a DPoP key, the client that signs proofs
// with it, and a client-credentials handler that gets its tokens through it.
func dpopClientCredentials(t *testing.T) (*DPoP, *http.Client, sdkauth.OAuthHandler) {
	t.Helper()
	d, err := NewDPoP(nil)
	if err != nil {
		t.Fatal(err)
	}
	client := d.Client(nil)
	h, err := NewClientCredentials(ClientCredentialsConfig{Client: ClientSecretBasic("svc", "pw"), Options: Options{HTTPClient: client}})
	if err != nil {
		t.Fatal(err)
	}
	return d, client, h
}

// A DPoP-bound token refused for its scope (403 insufficient_scope in a
// DPoP challenge) is replaced by one with the granted and the challenged
// scopes, bound to the same key.
func TestDPoPStepUp(t *testing.T) {
	ts := newTestServer(t, func(ts *testServer) {
		ts.dpop = true
		ts.authMethods = []string{"client_secret_basic"}
		ts.scopes = []string{"read"}
		ts.toolScope = map[string]string{"write": "write"}
	})
	_, client, h := dpopClientCredentials(t)
	got, err := callTool(testCtx(t), ts, h, client, "echo", "write")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"echo:hi", "write:hi"}) {
		t.Errorf("results %q", got)
	}
	if g := ts.grantTypes(); len(g) != 2 {
		t.Errorf("%d token requests (%q), want 2: the first grant, then the step-up", len(g), g)
	}
}

func TestDPoPAuthorizationCode(t *testing.T) {
	ts := newTestServer(t, func(ts *testServer) {
		ts.dpop, ts.dpopNonce = true, true
		ts.authMethods = []string{"none"}
	})
	d, _ := NewDPoP(nil)
	client := d.Client(nil)
	h, err := NewAuthorizationCode(AuthorizationCodeConfig{
		Authorizer:  AuthorizerFunc(followRedirect),
		RedirectURL: "http://127.0.0.1/cb",
		Client:      PublicClient("cli"),
		Options:     Options{HTTPClient: client},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := callTool(testCtx(t), ts, h, client, "echo"); err != nil {
		t.Fatal(err)
	}
}

func TestParseCallbackError(t *testing.T) {
	u, _ := url.Parse("http://127.0.0.1/cb?error=access_denied&error_description=no&state=x")
	_, err := ParseCallback(u)
	var e *Error
	if !errors.As(err, &e) || e.Code != "access_denied" || e.Step != StepAuthorization {
		t.Fatalf("err = %v", err)
	}
}

func TestExpiring(t *testing.T) {
	now := time.Now()
	long := &oauth2.Token{AccessToken: "a", Expiry: now.Add(time.Hour)}
	if expiring(long, now, DefaultSkew, now) {
		t.Error("an hour-long token is expiring")
	}
	if !expiring(&oauth2.Token{AccessToken: "a", Expiry: now.Add(10 * time.Second)}, time.Time{}, DefaultSkew, now) {
		t.Error("a token 10 s from expiry is not expiring")
	}
	if expiring(&oauth2.Token{AccessToken: "a", Expiry: now.Add(10 * time.Second)}, now, DefaultSkew, now) {
		t.Error("a fresh 10 s token should live half its life")
	}
}

// The non-interactive handlers renew a token before it expires: with the
// refresh token if the server issued one (keeping it when the refresh
// answer brings none), else by running the grant again.
func TestClientCredentialsRenewal(t *testing.T) {
	for _, tc := range []struct {
		name    string
		refresh bool
		want    []string
	}{
		{"refresh", true, []string{GrantClientCredentials, GrantRefreshToken, GrantRefreshToken}},
		{"grant", false, []string{GrantClientCredentials, GrantClientCredentials, GrantClientCredentials}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestServer(t, func(ts *testServer) {
				ts.authMethods = []string{"client_secret_basic"}
				ts.refresh, ts.keepRefresh = tc.refresh, true
				ts.expiresIn = 100 // renewed 30 s (DefaultSkew) before expiry
			})
			var later atomic.Int64 // how far the test moved the clock on
			h, err := NewClientCredentials(ClientCredentialsConfig{
				Client:  ClientSecretBasic("svc", "pw"),
				Options: Options{now: func() time.Time { return time.Now().Add(time.Duration(later.Load())) }},
			})
			if err != nil {
				t.Fatal(err)
			}
			ctx := testCtx(t)
			// Token expiries come from the real clock, renewal times from
			// the moved one: the first token is renewed from 70 s on (30 s
			// before expiry), the second, obtained at 72 s, lives until
			// 86 s (half its 28 s), the third until 93 s.
			for i, d := range []time.Duration{0, 72 * time.Second, 86 * time.Second} {
				later.Store(int64(d))
				if _, err := callTool(ctx, ts, h, nil, "echo"); err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
			}
			if g := ts.grantTypes(); !slices.Equal(g, tc.want) {
				t.Errorf("token requests %q, want %q", g, tc.want)
			}
		})
	}
}

// A renewal has a deadline: it runs under the cached token's lock, so a
// token endpoint that never answers must not stall every request for good.
func TestRenewalDeadline(t *testing.T) {
	for _, refreshToken := range []string{"", "rt"} {
		var withDeadline []bool
		check := func(ctx context.Context) {
			_, ok := ctx.Deadline()
			withDeadline = append(withDeadline, ok)
		}
		client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			check(r.Context())
			return &http.Response{
				StatusCode: http.StatusOK,
				Header:     http.Header{"Content-Type": {"application/json"}},
				Body:       io.NopCloser(strings.NewReader(`{"access_token":"refreshed","token_type":"Bearer"}`)),
			}, nil
		})}
		h := newGrantHandler("test", Options{HTTPClient: client}, nil, func(ctx context.Context, _ *serverInfo, _ []string) (*oauth2.Token, error) {
			check(ctx)
			return &oauth2.Token{AccessToken: "granted"}, nil
		})
		info := &serverInfo{resource: "https://mcp.example/mcp", asm: &oauthex.AuthServerMeta{Issuer: "https://as.example", TokenEndpoint: "https://as.example/token"}}
		h.install(info, &oauth2.Token{AccessToken: "old", RefreshToken: refreshToken, Expiry: time.Now().Add(-time.Minute)}, "key", nil)
		if _, err := h.cache.Token(); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(withDeadline, []bool{true}) {
			t.Errorf("refresh token %q: renewal requests had deadlines %v, want one with", refreshToken, withDeadline)
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// An MCP POST sent without a token (initialize) through the DPoP client is
// no token request: its answer, an event stream the server holds open,
// reaches the caller at once instead of being read ahead.
func TestDPoPPassesEventStream(t *testing.T) {
	release := make(chan struct{})
	srv := newHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "event: message\ndata: {}\n\n")
		w.(http.Flusher).Flush()
		<-release
	}))
	t.Cleanup(func() { close(release) }) // before srv.Close, which waits for the handler
	d, err := NewDPoP(nil)
	if err != nil {
		t.Fatal(err)
	}
	// Without the fix the read-ahead ends only at this deadline.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := d.Client(nil).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	var event string
	for !strings.HasSuffix(event, "\n\n") {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the first event: %v (read %q)", err, event)
		}
		event += line
	}
	if event != "event: message\ndata: {}\n\n" {
		t.Errorf("first event %q", event)
	}
	if ctx.Err() != nil {
		t.Error("the answer was held back until the request's deadline")
	}
	select {
	case <-release:
		t.Error("the server was released")
	default: // the stream is still open: the event came while it was held
	}
}
