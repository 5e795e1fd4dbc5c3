package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/mcpbridge/mcpbridge/internal/testing/oauthtest"
)

// The credentials the mechanisms of secretMechanisms send: none may show
// in an error, and none may reach a server it was not meant for.
const (
	testSecret    = "cl1ent-s3cret"
	testAssertion = "workload.assert1on.sig"
	testIDToken   = "user-1d-token"
)

// mechanism builds a handler with opts; an enterprise handler's identity
// provider is idp.
type mechanism struct {
	name  string
	build func(opts Options, idp *oauthtest.Server) (sdkauth.OAuthHandler, error)
}

// handler builds m's handler.
func (m mechanism) handler(t *testing.T, opts Options, idp *oauthtest.Server) sdkauth.OAuthHandler {
	t.Helper()
	h, err := m.build(opts, idp)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// secretMechanisms are the mechanisms that send a secret or an assertion
// to the authorization server's token endpoint.
func secretMechanisms() []mechanism {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	clientCredentials := func(ca ClientAuth) func(Options, *oauthtest.Server) (sdkauth.OAuthHandler, error) {
		return func(opts Options, _ *oauthtest.Server) (sdkauth.OAuthHandler, error) {
			return NewClientCredentials(ClientCredentialsConfig{Client: ca, Options: opts})
		}
	}
	return []mechanism{
		{"client_secret_basic", clientCredentials(ClientAuth{ID: "svc", Secret: testSecret, Method: "client_secret_basic"})},
		{"client_secret_post", clientCredentials(ClientAuth{ID: "svc", Secret: testSecret, Method: "client_secret_post"})},
		{"private_key_jwt", clientCredentials(ClientAuth{ID: "svc", Key: key})},
		{"jwt_bearer", func(opts Options, _ *oauthtest.Server) (sdkauth.OAuthHandler, error) {
			assertion := func(context.Context, string) (string, error) { return testAssertion, nil }
			return NewJWTBearer(JWTBearerConfig{Assertion: assertion, Client: ClientAuth{ID: "wl"}, Options: opts})
		}},
		{"enterprise", func(opts Options, idp *oauthtest.Server) (sdkauth.OAuthHandler, error) {
			subject := func(context.Context) (string, string, error) { return testIDToken, tokenTypeIDToken, nil }
			return NewEnterprise(EnterpriseConfig{IdPTokenEndpoint: idp.URL + "/token", IdPClient: ClientAuth{ID: "idp", Secret: testSecret, Method: "client_secret_post"},
				SubjectToken: subject, Client: ClientAuth{ID: "svc", Secret: testSecret, Method: "client_secret_basic"}, Options: opts})
		}},
	}
}

// checkRefused fails t unless err is a discovery error that names both
// servers and no credential.
func checkRefused(t *testing.T, err error, names ...string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Step != stepDiscovery {
		t.Fatalf("err = %v, want a discovery error", err)
	}
	for _, n := range names {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("error %q does not name %s", err, n)
		}
	}
	for _, secret := range []string{testSecret, testAssertion, testIDToken} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("error %q shows a credential", err)
		}
	}
}

// An MCP server whose metadata names an authorization server the handler
// does not trust (on another origin when no issuer is pinned, or any but
// the pinned one) does not get the credentials sent there: nothing at all
// reaches that server, nor the enterprise IdP, nor the token endpoint of
// the pinned one, and the error names both.
func TestUntrustedIssuer(t *testing.T) {
	for _, m := range secretMechanisms() {
		for _, pinned := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/pinned=%v", m.name, pinned), func(t *testing.T) {
				other := oauthtest.New(t, oauthtest.Config{})
				rs := oauthtest.New(t, oauthtest.Config{Issuer: other})
				opts, names := Options{}, []string{other.URL, "MCP server's origin " + rs.URL, "pin it as the issuer"}
				if pinned {
					opts, names = Options{Issuer: rs.URL}, []string{other.URL, "pinned issuer " + rs.URL}
				}
				idp := oauthtest.New(t, oauthtest.Config{})
				_, err := rs.Call(t.Context(), m.handler(t, opts, idp), nil, "echo")
				checkRefused(t, err, names...)
				if !errors.Is(err, ErrUntrustedIssuer) {
					t.Errorf("err = %v, want ErrUntrustedIssuer", err)
				}
				if n, g, i := other.Requests.Load(), rs.Grants(), idp.Requests.Load(); n != 0 || len(g) != 0 || i != 0 {
					t.Errorf("the other server received %d requests, the MCP server's token requests %q, the IdP %d requests", n, g, i)
				}
			})
		}
	}
}

// Authorization server metadata that names a token endpoint on another
// origin than its issuer's gets nothing sent there, pinned or not: the
// metadata of an issuer on the MCP server's origin is the MCP server's
// word, and the token request carries the client's secret.
func TestTokenEndpointOnAnotherOrigin(t *testing.T) {
	for _, m := range secretMechanisms() {
		for _, pinned := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/pinned=%v", m.name, pinned), func(t *testing.T) {
				other := oauthtest.New(t, oauthtest.Config{})
				rs := oauthtest.New(t, oauthtest.Config{TokenEndpoint: other.URL + "/token"})
				opts := Options{}
				if pinned {
					opts.Issuer = rs.URL
				}
				idp := oauthtest.New(t, oauthtest.Config{})
				_, err := rs.Call(t.Context(), m.handler(t, opts, idp), nil, "echo")
				checkRefused(t, err, other.URL+"/token", rs.URL)
				if !errors.Is(err, ErrUntrustedIssuer) {
					t.Errorf("err = %v, want ErrUntrustedIssuer", err)
				}
				if n, i := other.Requests.Load(), idp.Requests.Load(); n != 0 || i != 0 {
					t.Errorf("the other origin received %d requests, the IdP %d", n, i)
				}
			})
		}
	}
	// So does an enterprise identity provider found by its issuer.
	ts := oauthtest.New(t, oauthtest.Config{})
	other := oauthtest.New(t, oauthtest.Config{})
	idp := oauthtest.New(t, oauthtest.Config{TokenEndpoint: other.URL + "/token"})
	checkRefused(t, callThroughIdP(t, ts, idp), "identity provider", other.URL+"/token")
	if n := other.Requests.Load(); n != 0 {
		t.Errorf("the other origin received %d requests", n)
	}
}

// Authorization server metadata whose issuer is not the one it was fetched
// for (RFC 8414 section 3.3) is refused before any token request.
func TestMetadataIssuerMismatch(t *testing.T) {
	for _, m := range secretMechanisms() {
		t.Run(m.name, func(t *testing.T) {
			ts := oauthtest.New(t, oauthtest.Config{MetaIssuer: "https://attacker.example"})
			idp := oauthtest.New(t, oauthtest.Config{})
			_, err := ts.Call(t.Context(), m.handler(t, Options{}, idp), nil, "echo")
			checkRefused(t, err, "issuer", "https://attacker.example")
			if g := ts.Grants(); len(g) != 0 || idp.Requests.Load() != 0 {
				t.Errorf("token requests %q, IdP requests %d", g, idp.Requests.Load())
			}
		})
	}
}

// The enterprise IdP discovered from its issuer is held to the same rule:
// metadata claiming another issuer gets no subject token sent anywhere.
func TestEnterpriseIdPIssuerMismatch(t *testing.T) {
	ts := oauthtest.New(t, oauthtest.Config{})
	idp := oauthtest.New(t, oauthtest.Config{MetaIssuer: "https://attacker.example"})
	checkRefused(t, callThroughIdP(t, ts, idp), "identity provider", "https://attacker.example")
	if g := idp.Grants(); len(g) != 0 || len(ts.Grants()) != 0 {
		t.Errorf("token exchanges %q, token requests %q", g, ts.Grants())
	}
}

// callThroughIdP calls ts's echo through an enterprise handler whose
// identity provider is found by its issuer, idp, and returns the error.
func callThroughIdP(t *testing.T, ts, idp *oauthtest.Server) error {
	t.Helper()
	h, err := NewEnterprise(EnterpriseConfig{IdPIssuer: idp.URL, IdPClient: ClientAuth{ID: "idp", Secret: testSecret, Method: "client_secret_post"},
		SubjectToken: func(context.Context) (string, string, error) { return testIDToken, tokenTypeIDToken, nil },
		Client:       ClientAuth{ID: "svc", Secret: testSecret, Method: "client_secret_basic"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ts.Call(t.Context(), h, nil, "echo")
	return err
}

// A token endpoint that redirects does not get the request, with the
// secret in its body, resent to where it points.
func TestTokenEndpointRedirectNotFollowed(t *testing.T) {
	other := oauthtest.New(t, oauthtest.Config{})
	ts := oauthtest.New(t, oauthtest.Config{Redirect: other.URL + "/token"})
	h, err := NewClientCredentials(ClientCredentialsConfig{Client: ClientAuth{ID: "svc", Secret: testSecret, Method: "client_secret_post"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ts.Call(t.Context(), h, nil, "echo")
	var e *Error
	if !errors.As(err, &e) || e.Step != stepTokenRequest || !strings.Contains(err.Error(), ts.URL+" redirected to "+other.URL+": not followed") {
		t.Fatalf("err = %v, want a token request error about the redirect", err)
	}
	if strings.Contains(err.Error(), testSecret) {
		t.Errorf("error %q shows the secret", err)
	}
	if n := other.Requests.Load(); n != 0 {
		t.Errorf("the redirect's target received %d requests", n)
	}
}

// A pinned issuer works wherever it is, and AnyIssuer trusts whatever the
// metadata names.
func TestPinnedIssuer(t *testing.T) {
	for _, m := range secretMechanisms() {
		t.Run(m.name, func(t *testing.T) {
			other := oauthtest.New(t, oauthtest.Config{})
			rs := oauthtest.New(t, oauthtest.Config{Issuer: other})
			idp := oauthtest.New(t, oauthtest.Config{})
			for _, pin := range []string{other.URL, other.URL + "/", AnyIssuer} {
				if _, err := rs.Call(t.Context(), m.handler(t, Options{Issuer: pin}, idp), nil, "echo"); err != nil {
					t.Errorf("pinned to %s: %v", pin, err)
				}
			}
			if g := other.Grants(); len(g) != 3 {
				t.Errorf("the pinned server had %d token requests, want 3", len(g))
			}
		})
	}
}

func TestChooseIssuer(t *testing.T) {
	const server = "https://MCP.example:443/mcp"
	for _, tc := range []struct {
		pin   string
		named []string
		want  string
	}{
		{"", []string{"https://as.example", "https://mcp.example/tenant"}, "https://mcp.example/tenant"},
		{"https://as.example/", []string{"https://other.example", "https://as.example"}, "https://as.example"},
		{AnyIssuer, []string{"https://other.example"}, "https://other.example"},
		{"", []string{"http://mcp.example"}, ""},       // another scheme
		{"", []string{"https://mcp.example:8443"}, ""}, // another port
		{"https://as.example", []string{"https://mcp.example"}, ""},
	} {
		o := &Options{Issuer: tc.pin}
		got, err := o.chooseIssuer(server, tc.named)
		if got != tc.want || (err == nil) != (tc.want != "") {
			t.Errorf("pin %q, named %q: got %q, %v; want %q", tc.pin, tc.named, got, err, tc.want)
		}
	}
}

// countingAuthorizer is a browser, counting the users sent.
type countingAuthorizer struct{ sent atomic.Int32 }

func (a *countingAuthorizer) authorize(ctx context.Context, authURL string) (*url.URL, error) {
	a.sent.Add(1)
	return browser(nil)(ctx, authURL)
}

// The authorization code flow follows the metadata unless an issuer is
// pinned; with a pin, another authorization server gets nothing, not even
// a metadata request, and the user is not sent there.
func TestAuthorizationCodePinnedIssuer(t *testing.T) {
	other := oauthtest.New(t, oauthtest.Config{AuthMethods: []string{"none"}})
	rs := oauthtest.New(t, oauthtest.Config{Issuer: other})
	newHandler := func(a Authorizer, pin string) sdkauth.OAuthHandler {
		h, err := NewAuthorizationCode(AuthorizationCodeConfig{Authorizer: a, RedirectURL: "http://127.0.0.1/cb",
			Client: ClientAuth{ID: "cli"}, Options: Options{Issuer: pin}})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	var user countingAuthorizer
	_, err := rs.Call(t.Context(), newHandler(user.authorize, rs.URL), nil, "echo")
	checkRefused(t, err, other.URL, "pinned issuer "+rs.URL)
	if !errors.Is(err, ErrUntrustedIssuer) || other.Requests.Load() != 0 || user.sent.Load() != 0 {
		t.Fatalf("err = %v; the other server received %d requests, %d users were sent", err, other.Requests.Load(), user.sent.Load())
	}
	for _, pin := range []string{other.URL, "", AnyIssuer} {
		if _, err := rs.Call(t.Context(), newHandler(user.authorize, pin), nil, "echo"); err != nil {
			t.Errorf("pinned to %q: %v", pin, err)
		}
	}
	if user.sent.Load() != 3 {
		t.Errorf("%d users sent to the other server, want 3", user.sent.Load())
	}
}

// A client secret of the authorization code flow is bound to the server
// that issued it: a handler without the issuer cannot be built.
func TestAuthorizationCodeSecretNeedsIssuer(t *testing.T) {
	_, err := NewAuthorizationCode(AuthorizationCodeConfig{Authorizer: browser(nil),
		RedirectURL: "http://127.0.0.1/cb", Client: ClientAuth{ID: "cli", Secret: testSecret}})
	if err == nil || !strings.Contains(err.Error(), "Issuer") {
		t.Fatalf("err = %v, want one asking for the Issuer", err)
	}
}

// A server whose metadata names the pinned authorization server when the
// handler reads it and another when go-sdk's handler reads it again gets
// neither a secret, nor a code, nor the user sent to the other.
func TestAuthorizationCodeMetadataChangesBetweenReads(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  AuthorizationCodeConfig
	}{
		{"pre-registered secret", AuthorizationCodeConfig{Client: ClientAuth{ID: "cli", Secret: testSecret, Method: "client_secret_post"}}},
		{"dynamic registration", AuthorizationCodeConfig{Registration: &oauthex.ClientRegistrationMetadata{RedirectURIs: []string{"http://127.0.0.1/cb"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pinned := oauthtest.New(t, oauthtest.Config{})
			other := oauthtest.New(t, oauthtest.Config{})
			rs := oauthtest.New(t, oauthtest.Config{Issuer: pinned, FlipTo: other})
			var user countingAuthorizer
			cfg := tc.cfg
			cfg.Authorizer, cfg.RedirectURL, cfg.Issuer = user.authorize, "http://127.0.0.1/cb", pinned.URL
			h, err := NewAuthorizationCode(cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, err = rs.Call(t.Context(), h, nil, "echo")
			if err == nil || rs.Served(metadataPath) < 2 {
				t.Fatalf("err = %v after %d metadata reads, want an error after two", err, rs.Served(metadataPath))
			}
			if g := other.Grants(); len(g) != 0 || user.sent.Load() != 0 || strings.Contains(err.Error(), testSecret) {
				t.Errorf("err = %v; token requests at the other server %q, users sent %d", err, g, user.sent.Load())
			}
		})
	}
}
