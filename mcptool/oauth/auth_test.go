package oauth

import (
	"bufio"
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-jose/go-jose/v4"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/mcpbridge/mcpbridge/internal/testing/oauthtest"
)

// The authorization code flow asks the user once, steps up to the scopes a
// tool needs, and refreshes the token before it expires.
func TestAuthorizationCode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n oauthtest.Network
		ts := n.Start(oauthtest.Config{
			Scopes:      []string{"read"},
			ToolScopes:  map[string]string{"write": "write"},
			IssParam:    true,
			Refresh:     true,
			ExpiresIn:   60, // renewed after half its lifetime
			AuthMethods: []string{"none"},
		})
		h := publicAuthorizationCode(t, &n)
		got, err := ts.Call(t.Context(), h, n.Client(), "echo", "write")
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, []string{"echo:hi", "write:hi"}) {
			t.Errorf("results %q", got)
		}
		// Step-up: the second authorization asks for the granted and the challenged scope.
		asked := ts.AuthorizationScopes()
		second := strings.Fields(asked[len(asked)-1])
		slices.Sort(second)
		if want := []string{"read", "write"}; len(asked) != 2 || asked[0] != "read" || !slices.Equal(second, want) {
			t.Errorf("authorization scopes %q, want %q", asked, want)
		}
		time.Sleep(31 * time.Second) // past half the token's minute
		if _, err := ts.Call(t.Context(), h, n.Client(), "echo"); err != nil {
			t.Fatal(err)
		}
		if g := ts.Grants(); !slices.Contains(g, grantRefreshToken) {
			t.Errorf("grants %q: no refresh", g)
		}
		if n := len(ts.AuthorizationScopes()); n != 2 {
			t.Errorf("user asked %d times, want 2", n)
		}
	})
}

// publicAuthorizationCode is the authorization code flow of the public
// client "cli", on n, whose user authorizes whatever is asked.
func publicAuthorizationCode(t *testing.T, n *oauthtest.Network) sdkauth.OAuthHandler {
	t.Helper()
	h, err := NewAuthorizationCode(AuthorizationCodeConfig{
		Authorizer:  browser(n.Client()),
		RedirectURL: "http://127.0.0.1/cb",
		Client:      ClientAuth{ID: "cli"},
		Options:     Options{HTTPClient: n.Client()},
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestAuthorizationCodeIssuerMismatch(t *testing.T) {
	ts := oauthtest.New(t, oauthtest.Config{IssParam: true, WrongIss: true})
	h, err := NewAuthorizationCode(AuthorizationCodeConfig{
		Authorizer:  browser(nil),
		RedirectURL: "http://127.0.0.1/cb",
		Client:      ClientAuth{ID: "cli", Secret: "code-secret-123"},
		Options:     Options{Issuer: ts.URL},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ts.Call(t.Context(), h, nil, "echo")
	var e *Error
	if !errors.As(err, &e) || e.Step != stepAuthorization || !strings.Contains(err.Error(), "issuer") {
		t.Fatalf("err = %v, want an authorization step error about the issuer", err)
	}
	if strings.Contains(err.Error(), "code-secret-123") {
		t.Error("secret in error")
	}
	if g := ts.Grants(); len(g) != 0 {
		t.Errorf("token requests %q after an issuer mismatch", g)
	}
}

func TestClientCredentialsSecret(t *testing.T) {
	for _, method := range []string{"client_secret_basic", "client_secret_post"} {
		t.Run(method, func(t *testing.T) {
			ts := oauthtest.New(t, oauthtest.Config{
				AuthMethods: []string{method},
				Clients:     map[string]string{"svc": "s3cr3t:/+"},
				Scopes:      []string{"read"},
				Check: func(r *http.Request, f url.Values) *oauthtest.Refusal {
					return refuse(f.Get("grant_type") == grantClientCredentials && f.Get("scope") == "read", "invalid_request", "bad request")
				},
			})
			ca := ClientAuth{ID: "svc", Secret: "s3cr3t:/+", Method: "client_secret_basic"}
			if method == "client_secret_post" {
				ca = ClientAuth{ID: "svc", Secret: "s3cr3t:/+", Method: "client_secret_post"}
			}
			store := &memoryStore{}
			h, err := NewClientCredentials(ClientCredentialsConfig{Client: ca, Options: Options{Store: store}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ts.Call(t.Context(), h, nil, "echo", "echo"); err != nil {
				t.Fatal(err)
			}
			if _, err := ts.Call(t.Context(), h, nil, "echo"); err != nil {
				t.Fatal(err)
			}
			// A new handler sharing the store reuses the stored token.
			h2, _ := NewClientCredentials(ClientCredentialsConfig{Client: ca, Options: Options{Store: store}})
			if _, err := ts.Call(t.Context(), h2, nil, "echo"); err != nil {
				t.Fatal(err)
			}
			if g := ts.Grants(); len(g) != 1 {
				t.Errorf("%d token requests (%q), want 1 (cached, then stored)", len(g), g)
			}
		})
	}
}

func TestClientCredentialsSecretNeverShown(t *testing.T) {
	const secret = "very-secret-value-42"
	ts := oauthtest.New(t, oauthtest.Config{Clients: map[string]string{"svc": "another"}})
	var logs bytes.Buffer
	ca := ClientAuth{ID: "svc", Secret: secret, Method: "client_secret_post"}
	h, err := NewClientCredentials(ClientCredentialsConfig{Client: ca, Options: Options{
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}})
	if err != nil {
		t.Fatal(err)
	}
	slog.New(slog.NewTextHandler(&logs, nil)).Info("config", "client", ca)
	_, err = ts.Call(t.Context(), h, nil, "echo")
	var e *Error
	if !errors.As(err, &e) || e.Step != stepTokenRequest || e.Code != "invalid_client" || e.Status != 401 {
		t.Fatalf("err = %v, want a token request error with invalid_client", err)
	}
	if !strings.Contains(err.Error(), "client credentials: token request: invalid_client (bad client credentials)") {
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

// fmtAll is v (a ClientAuth) as every way of printing or logging it shows
// it: each fmt verb, a config that holds it, slog's text and JSON
// handlers, and JSON.
func fmtAll(v any) string {
	var b strings.Builder
	for _, f := range []string{"%v", "%+v", "%#v", "%s", "%d", "%q", "%x"} {
		ca := v.(ClientAuth)
		b.WriteString(fmt.Sprintf(f, ca))
		b.WriteString(fmt.Sprintf(f, &ca))
		b.WriteString(fmt.Sprintf(f, ClientCredentialsConfig{Client: ca}))
	}
	slog.New(slog.NewTextHandler(&b, nil)).Info("config", "client", v)
	slog.New(slog.NewJSONHandler(&b, nil)).Info("config", "client", v, "config", struct{ Client ClientAuth }{v.(ClientAuth)})
	data, _ := json.Marshal(v)
	b.Write(data)
	return b.String()
}

func TestPrivateKeyJWT(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	for _, aud := range []string{audienceIssuer, audienceTokenEndpoint} {
		t.Run(aud, func(t *testing.T) {
			var ts *oauthtest.Server
			ts = oauthtest.New(t, oauthtest.Config{
				AuthMethods: []string{"private_key_jwt"},
				Keys:        map[string]crypto.PublicKey{"jwt-client": &key.PublicKey},
				Check: func(r *http.Request, f url.Values) *oauthtest.Refusal {
					jws, _ := jose.ParseSigned(f.Get("client_assertion"), []jose.SignatureAlgorithm{jose.ES256})
					var c struct{ Aud string }
					json.Unmarshal(jws.UnsafePayloadWithoutVerification(), &c)
					want := map[string]string{audienceIssuer: ts.URL, audienceTokenEndpoint: ts.URL + "/token"}[aud]
					return refuse(jws.Signatures[0].Header.KeyID == "k1" && c.Aud == want, "invalid_client", "kid or aud")
				},
			})
			pk := ClientAuth{ID: "jwt-client", Key: key, KeyID: "k1", Audience: aud}
			h, err := NewClientCredentials(ClientCredentialsConfig{Client: pk})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ts.Call(t.Context(), h, nil, "echo"); err != nil {
				t.Fatal(err)
			}
			if s := fmtAll(pk); strings.Contains(s, "D:") || strings.Contains(s, key.D.String()) || strings.Contains(s, key.D.Text(16)) || !strings.Contains(s, "jwt-client") {
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
	ts := oauthtest.New(t, oauthtest.Config{
		AuthMethods: []string{"none"},
		Check: func(r *http.Request, f url.Values) *oauthtest.Refusal {
			if reject {
				return refuse(false, "invalid_grant", "assertion expired")
			}
			return refuse(f.Get("grant_type") == grantJWTBearer && f.Get("assertion") == assertion && f.Get("client_id") == "wl", "invalid_request", "bad jwt-bearer request")
		},
	})
	newHandler := func(path string) sdkauth.OAuthHandler {
		h, err := NewJWTBearer(JWTBearerConfig{AssertionFile: path, Client: ClientAuth{ID: "wl"}})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	if _, err := ts.Call(t.Context(), newHandler(path), nil, "echo"); err != nil {
		t.Fatal(err)
	}

	reject = true
	_, err := ts.Call(t.Context(), newHandler(path), nil, "echo")
	var e *Error
	if !errors.As(err, &e) || e.Code != "invalid_grant" || e.Step != stepTokenRequest {
		t.Fatalf("err = %v, want invalid_grant at the token request", err)
	}
	if strings.Contains(err.Error(), assertion) {
		t.Error("assertion in error")
	}
	if g := ts.Grants(); len(g) != 2 {
		t.Errorf("token requests %q: a refused grant must not be retried", g)
	}

	_, err = ts.Call(t.Context(), newHandler(filepath.Join(t.TempDir(), "missing")), nil, "echo")
	if !errors.As(err, &e) || e.Step != stepAssertion {
		t.Errorf("missing file: err = %v", err)
	}
}

// enterprise starts an identity provider and an MCP server whose
// authorization server takes the ID-JAGs it issues, and returns them with
// the config of a handler for the server.
func enterprise(t *testing.T, start func(oauthtest.Config) *oauthtest.Server) (idp, ts *oauthtest.Server, cfg EnterpriseConfig) {
	const idToken = "id-token-of-alice"
	idp = start(oauthtest.Config{
		Clients: map[string]string{"idp-client": "idp-secret"},
		Check: func(r *http.Request, f url.Values) *oauthtest.Refusal {
			return refuse(f.Get("grant_type") == grantTokenExchange && f.Get("requested_token_type") == tokenTypeIDJAG &&
				f.Get("subject_token") == idToken && f.Get("subject_token_type") == tokenTypeIDToken &&
				f.Get("audience") == ts.URL && f.Get("resource") == ts.URL+"/mcp" && f.Get("scope") == "read", "invalid_request", "bad exchange")
		},
	})
	ts = start(oauthtest.Config{
		AuthMethods: []string{"client_secret_basic"},
		Clients:     map[string]string{"mcp-client": "mcp-secret"},
		Scopes:      []string{"read"},
		ExpiresIn:   100,
		Check: func(r *http.Request, f url.Values) *oauthtest.Refusal {
			return refuse(f.Get("grant_type") == grantJWTBearer && strings.HasPrefix(f.Get("assertion"), "jag-"), "invalid_grant", "bad ID-JAG")
		},
	})
	return idp, ts, EnterpriseConfig{
		IdPIssuer:    idp.URL,
		IdPClient:    ClientAuth{ID: "idp-client", Secret: "idp-secret", Method: "client_secret_post"},
		SubjectToken: func(context.Context) (string, string, error) { return idToken, tokenTypeIDToken, nil },
		Client:       ClientAuth{ID: "mcp-client", Secret: "mcp-secret", Method: "client_secret_basic"},
	}
}

func TestEnterprise(t *testing.T) {
	idp, ts, cfg := enterprise(t, func(c oauthtest.Config) *oauthtest.Server { return oauthtest.New(t, c) })
	cfg.IdPTokenEndpoint = idp.URL + "/token"
	h, err := NewEnterprise(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Call(t.Context(), h, nil, "echo"); err != nil {
		t.Fatal(err)
	}

	// A refused exchange names the step and hides the subject token.
	cfg.IdPClient = ClientAuth{ID: "idp-client", Secret: "wrong", Method: "client_secret_post"}
	h, _ = NewEnterprise(cfg)
	_, err = ts.Call(t.Context(), h, nil, "echo")
	var e *Error
	if !errors.As(err, &e) || e.Step != stepTokenExchange || e.Code != "invalid_client" || strings.Contains(err.Error(), "id-token-of-alice") {
		t.Fatalf("err = %v", err)
	}
}

// The identity provider is discovered once for all the grants of a
// handler, not at each renewal.
func TestEnterpriseDiscoversIdPOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n oauthtest.Network
		idp, ts, cfg := enterprise(t, n.Start)
		cfg.HTTPClient = n.Client()
		h, err := NewEnterprise(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, wait := range []time.Duration{0, 80 * time.Second} { // renewed 30 s before it expires
			time.Sleep(wait)
			if _, err := ts.Call(t.Context(), h, n.Client(), "echo"); err != nil {
				t.Fatal(err)
			}
		}
		if g, m := ts.Grants(), idp.Served("/.well-known/oauth-authorization-server"); len(g) != 2 || m != 1 {
			t.Errorf("grants %q, identity provider metadata read %d times; want 2 grants, 1 read", g, m)
		}
	})
}

func TestDPoP(t *testing.T) {
	for _, nonce := range []bool{false, true} {
		t.Run(fmt.Sprintf("nonce=%v", nonce), func(t *testing.T) {
			ts := oauthtest.New(t, oauthtest.Config{DPoP: true, DPoPNonce: nonce})
			client, h := dpopClientCredentials(t)
			if _, err := ts.Call(t.Context(), h, client, "echo", "echo"); err != nil {
				t.Fatal(err)
			}
			if as, rs := ts.NonceChallenges("/token"), ts.NonceChallenges("/mcp"); nonce && (as != 1 || rs != 1) {
				t.Errorf("nonce challenges: AS %d, RS %d; want 1 each", as, rs)
			}
		})
	}
}

// Without its DPoP key a handler's tokens are Bearer tokens, which a server
// that binds tokens refuses: the key in Options alone makes the proofs.
func TestDPoPNeedsTheKey(t *testing.T) {
	ts := oauthtest.New(t, oauthtest.Config{DPoP: true})
	h, err := NewClientCredentials(ClientCredentialsConfig{Client: ClientAuth{ID: "svc", Secret: "pw"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Call(t.Context(), h, &http.Client{Transport: Transport(h, nil)}, "echo"); err == nil {
		t.Fatal("a server that binds tokens took an unbound one")
	}
}

// dpopClientCredentials returns a client-credentials handler whose tokens
// are bound to a fresh key, and the client of the MCP transport that signs
// the proofs of its requests with it.
func dpopClientCredentials(t *testing.T) (*http.Client, sdkauth.OAuthHandler) {
	t.Helper()
	h, err := NewClientCredentials(ClientCredentialsConfig{Client: ClientAuth{ID: "svc", Secret: "pw"}, Options: Options{DPoP: newKey(t)}})
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Transport: Transport(h, nil)}, h
}

// newKey returns a fresh P-256 key.
func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// A DPoP-bound token refused for its scope (403 insufficient_scope in a
// DPoP challenge) is replaced by one with the granted and the challenged
// scopes, bound to the same key; the server's metadata is not read again.
func TestDPoPStepUp(t *testing.T) {
	ts := oauthtest.New(t, oauthtest.Config{DPoP: true, Scopes: []string{"read"}, ToolScopes: map[string]string{"write": "write"}})
	client, h := dpopClientCredentials(t)
	got, err := ts.Call(t.Context(), h, client, "echo", "write")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"echo:hi", "write:hi"}) {
		t.Errorf("results %q", got)
	}
	if g := ts.Grants(); len(g) != 2 {
		t.Errorf("%d token requests (%q), want 2: the first grant, then the step-up", len(g), g)
	}
	if n := ts.Served(metadataPath); n != 1 {
		t.Errorf("protected resource metadata read %d times, want 1", n)
	}
}

func TestDPoPAuthorizationCode(t *testing.T) {
	ts := oauthtest.New(t, oauthtest.Config{DPoP: true, DPoPNonce: true, AuthMethods: []string{"none"}})
	h, err := NewAuthorizationCode(AuthorizationCodeConfig{
		Authorizer:  browser(nil),
		RedirectURL: "http://127.0.0.1/cb",
		Client:      ClientAuth{ID: "cli"},
		Options:     Options{DPoP: newKey(t)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Call(t.Context(), h, &http.Client{Transport: Transport(h, nil)}, "echo"); err != nil {
		t.Fatal(err)
	}
}

func TestParseCallbackError(t *testing.T) {
	u, _ := url.Parse("http://127.0.0.1/cb?error=access_denied&error_description=no&state=x")
	_, err := parseCallback(u)
	var e *Error
	if !errors.As(err, &e) || e.Code != "access_denied" || e.Step != stepAuthorization {
		t.Fatalf("err = %v", err)
	}
}

func TestExpiring(t *testing.T) {
	now := time.Now()
	long := &oauth2.Token{AccessToken: "a", Expiry: now.Add(time.Hour)}
	if expiring(long, now, defaultSkew, now) {
		t.Error("an hour-long token is expiring")
	}
	if !expiring(&oauth2.Token{AccessToken: "a", Expiry: now.Add(10 * time.Second)}, time.Time{}, defaultSkew, now) {
		t.Error("a token 10 s from expiry is not expiring")
	}
	if expiring(&oauth2.Token{AccessToken: "a", Expiry: now.Add(10 * time.Second)}, now, defaultSkew, now) {
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
		{"refresh", true, []string{grantClientCredentials, grantRefreshToken, grantRefreshToken}},
		{"grant", false, []string{grantClientCredentials, grantClientCredentials, grantClientCredentials}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var n oauthtest.Network
				ts := n.Start(oauthtest.Config{Refresh: tc.refresh, KeepRefresh: true, ExpiresIn: 100})
				h, err := NewClientCredentials(ClientCredentialsConfig{
					Client:  ClientAuth{ID: "svc", Secret: "pw", Method: "client_secret_basic"},
					Options: Options{HTTPClient: n.Client()},
				})
				if err != nil {
					t.Fatal(err)
				}
				// Each token lives 100 s and is renewed 30 s (defaultSkew)
				// before it expires: at 70 s, and the next at 140 s.
				for i, wait := range []time.Duration{0, 69 * time.Second, 2 * time.Second, 70 * time.Second} {
					time.Sleep(wait)
					if _, err := ts.Call(t.Context(), h, n.Client(), "echo"); err != nil {
						t.Fatalf("call %d: %v", i, err)
					}
				}
				if g := ts.Grants(); !slices.Equal(g, tc.want) {
					t.Errorf("token requests %q, want %q", g, tc.want)
				}
			})
		})
	}
}

// A renewal has a deadline: it runs under the cached token's lock, so a
// token endpoint that never answers must not stall every request for good.
func TestRenewalDeadline(t *testing.T) {
	for _, refreshToken := range []string{"", "rt"} {
		var withDeadline []bool
		client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			_, ok := r.Context().Deadline()
			withDeadline = append(withDeadline, ok)
			return &http.Response{
				StatusCode: http.StatusOK,
				Header:     http.Header{"Content-Type": {"application/json"}},
				Body:       io.NopCloser(strings.NewReader(`{"access_token":"renewed","token_type":"Bearer"}`)),
			}, nil
		})}
		grant := func(_ context.Context, info *serverInfo, scopes []string) (url.Values, error) {
			return grantForm(grantClientCredentials, info, scopes), nil
		}
		h, err := newGrantHandler("test", Options{HTTPClient: client}, ClientAuth{}, grant, nil)
		if err != nil {
			t.Fatal(err)
		}
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

// Settings the option rule does not allow are refused by name when the
// handler is built.
func TestNegativeSettingsRefused(t *testing.T) {
	key := newKey(t)
	for _, tc := range []struct {
		cfg  ClientCredentialsConfig
		want string
	}{
		{ClientCredentialsConfig{Client: ClientAuth{ID: "svc", Secret: "pw"}, Options: Options{Skew: -time.Second}}, "oauth: client credentials: Skew -1s is negative"},
		{ClientCredentialsConfig{Client: ClientAuth{ID: "svc", Key: key, Lifetime: -time.Minute}}, "Client.Lifetime -1m0s is negative"},
	} {
		if _, err := NewClientCredentials(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err = %v, want %q", err, tc.want)
		}
	}
	_, err := NewJWTBearer(JWTBearerConfig{AssertionFile: "f", Client: ClientAuth{ID: "wl"}, Options: Options{Skew: -1}})
	if err == nil || !strings.Contains(err.Error(), "oauth: jwt bearer: Skew") {
		t.Errorf("jwt bearer: err = %v", err)
	}
}

// A ClientAuth whose fields do not make one method is refused, naming the
// field at fault, before anything is sent.
func TestClientAuthChecked(t *testing.T) {
	key := newKey(t)
	for _, tc := range []struct {
		client ClientAuth
		want   string
	}{
		{ClientAuth{ID: "svc", Method: "client_secret_jwt", Secret: "pw"}, `Client.Method "client_secret_jwt": want client_secret_basic, client_secret_post, private_key_jwt or none`},
		{ClientAuth{ID: "svc", Method: "private_key_jwt"}, "Client: private_key_jwt has no Key"},
		{ClientAuth{ID: "svc", Method: "client_secret_post"}, "Client: client_secret_post has no Secret"},
		{ClientAuth{ID: "svc", Secret: "pw", Key: key}, "Client has both a Secret and a Key"},
		{ClientAuth{ID: "svc", Method: "client_secret_basic", Secret: "pw", Key: key}, "Client has both a Secret and a Key"},
		{ClientAuth{ID: "svc", Method: "client_secret_basic", Key: key}, "Client: client_secret_basic has no Secret"},
	} {
		if _, err := NewClientCredentials(ClientCredentialsConfig{Client: tc.client}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.client, err, tc.want)
		}
	}
	cfg := EnterpriseConfig{IdPTokenEndpoint: "https://idp/token", IdPClient: ClientAuth{ID: "idp", Method: "private_key_jwt"},
		SubjectToken: func(context.Context) (string, string, error) { return "", "", nil }, Client: ClientAuth{ID: "svc"}}
	if _, err := NewEnterprise(cfg); err == nil || !strings.Contains(err.Error(), "IdPClient: private_key_jwt has no Key") {
		t.Errorf("enterprise: err = %v, want the IdPClient named", err)
	}
	for _, tc := range []struct {
		cfg  JWTBearerConfig
		want string
	}{
		{JWTBearerConfig{}, "Assertion or AssertionFile is required"},
		{JWTBearerConfig{AssertionFile: "f", Assertion: func(context.Context, string) (string, error) { return "", nil }}, "not both"},
		{JWTBearerConfig{AssertionFile: "f", Client: ClientAuth{ID: "wl", Method: "none", Secret: "pw"}}, "Client: method none takes no Secret or Key"},
	} {
		if _, err := NewJWTBearer(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("jwt bearer: err = %v, want %q", err, tc.want)
		}
	}
	if _, err := NewClientCredentials(ClientCredentialsConfig{Client: ClientAuth{ID: "svc"}}); err == nil || !strings.Contains(err.Error(), "confidential client") {
		t.Errorf("public client credentials: err = %v", err)
	}
	if _, err := NewClientCredentials(ClientCredentialsConfig{Client: ClientAuth{ID: "svc", Secret: "pw"}, Options: Options{DPoP: badSigner{}}}); err == nil || !strings.Contains(err.Error(), "DPoP: unsupported signing key type") {
		t.Errorf("DPoP key of no known type: err = %v", err)
	}
}

// badSigner is a crypto.Signer of no type JOSE signs with.
type badSigner struct{}

func (badSigner) Public() crypto.PublicKey { return nil }
func (badSigner) Sign(io.Reader, []byte, crypto.SignerOpts) ([]byte, error) {
	return nil, errors.New("no")
}

// An MCP POST sent without a token (initialize) through the DPoP client is
// no token request: its answer, an event stream the server holds open,
// reaches the caller at once instead of being read ahead.
func TestDPoPPassesEventStream(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "event: message\ndata: {}\n\n")
		w.(http.Flusher).Flush()
		<-release
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // before srv.Close, which waits for the handler
	d, err := newDPoP(newKey(t))
	if err != nil {
		t.Fatal(err)
	}
	// Without the fix the read-ahead ends only at this deadline.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := (&http.Client{Transport: d.transport(nil)}).Do(req)
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

// What discovery learnt is forgotten when the token endpoint fails other
// than with an OAuth error (it may have moved), and kept when it answers.
func TestDiscoveryForgottenAfterFailure(t *testing.T) {
	var broken atomic.Bool
	broken.Store(true)
	ts := oauthtest.New(t, oauthtest.Config{Check: func(*http.Request, url.Values) *oauthtest.Refusal {
		if broken.Load() {
			return &oauthtest.Refusal{Status: http.StatusInternalServerError}
		}
		return nil
	}})
	h, err := NewClientCredentials(ClientCredentialsConfig{Client: ClientAuth{ID: "svc", Secret: "pw", Method: "client_secret_basic"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Call(t.Context(), h, nil, "echo"); err == nil {
		t.Fatal("a broken token endpoint gave a token")
	}
	failed := ts.Served(metadataPath)
	broken.Store(false)
	if _, err := ts.Call(t.Context(), h, nil, "echo"); err != nil {
		t.Fatal(err)
	}
	if n := ts.Served(metadataPath); n != failed+1 {
		t.Errorf("metadata read %d times after the failure, want 1", n-failed)
	}
}

// The assertion file is read at each grant, so a token rotated in place is
// used; an empty file is an error naming it.
func TestAssertionFileReread(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	assertion := assertionFromFile(path)
	for _, content := range []string{"first.assertion.sig\n", "rotated.assertion.sig"} {
		os.WriteFile(path, []byte(content), 0o600)
		if got, err := assertion(t.Context(), "https://auth.example.com"); got != strings.TrimSpace(content) || err != nil {
			t.Errorf("read %q, %v; want %q", got, err, strings.TrimSpace(content))
		}
	}
	os.WriteFile(path, []byte(" \n"), 0o600)
	if _, err := assertion(t.Context(), ""); err == nil || !strings.Contains(err.Error(), path+" is empty") {
		t.Errorf("empty file: err = %v", err)
	}
}
