package catalog

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/mcptool/oauth"
)

// AuthConfig is a server's "auth" entry: how a headless host obtains the
// OAuth token an HTTP server asks for. Secrets may come from the
// environment with ${VAR}, and files are read when the server connects.
//
//	"auth": {"grant": "client_credentials", "clientId": "agent", "clientSecret": "${AGENT_SECRET}"}
//	"auth": {"grant": "client_credentials", "clientId": "agent", "clientAuth": "private_key_jwt", "privateKeyFile": "/etc/agent/key.pem", "keyId": "k1"}
//	"auth": {"grant": "jwt_bearer", "clientId": "agent", "clientAuth": "none", "assertionFile": "/var/run/secrets/token"}
//	"auth": {"grant": "enterprise", "clientId": "agent", "clientSecret": "${S}", "idpTokenEndpoint": "https://idp/token",
//	         "idpClientId": "agent-at-idp", "idpClientSecret": "${IDP_S}", "subjectTokenFile": "/run/id_token"}
//
// Add "dpop": true to bind the tokens to a key of the host's (RFC 9449).
//
// The server's metadata names its authorization server, but does not
// decide where the credentials go: they go to an authorization server on
// the server's own origin, or to the one "issuer" pins (its issuer URL, as
// the authorization server's metadata says); another is refused before
// anything is sent to it. "issuer": "*" trusts whichever the server names.
type AuthConfig struct {
	// Grant is "client_credentials", "jwt_bearer" or "enterprise".
	Grant string
	// ClientID is the client's registration at the server's authorization
	// server.
	ClientID string
	// ClientSecret authenticates a confidential client.
	ClientSecret string
	// ClientAuth is how the client authenticates: "basic" (the default with
	// a secret), "post", "private_key_jwt", or "none" (the default without).
	ClientAuth string
	// PrivateKeyFile is the PEM private key of private_key_jwt; KeyID its
	// kid.
	PrivateKeyFile, KeyID string
	// AssertionFile holds the JWT of a jwt_bearer grant, read at every grant
	// (workload tokens are rotated in place).
	AssertionFile string
	// Issuer pins the authorization server (oauth.Options.Issuer): its
	// issuer URL, or "*" for whichever the server's metadata names.
	Issuer string
	// Scopes are requested with the token.
	Scopes []string
	// DPoP binds tokens to a key generated at start.
	DPoP bool
	// IdPTokenEndpoint, IdPClientID, IdPClientSecret and SubjectTokenFile
	// configure the identity provider's token exchange of an enterprise
	// grant.
	IdPTokenEndpoint, IdPClientID, IdPClientSecret, SubjectTokenFile string
}

// parseAuth decodes an "auth" entry, reporting unknown keys and wrong types
// as problems of the server.
func parseAuth(data json.RawMessage, problem func(key, format string, args ...any)) *AuthConfig {
	entries, err := objectEntries(data)
	if err != nil {
		problem("auth", "want an object")
		return nil
	}
	a := &AuthConfig{}
	const str = "a string"
	readObject(entries, "auth.", problem, []member{
		{"grant", decode(&a.Grant, str)},
		{"clientId", decode(&a.ClientID, str)},
		{"clientSecret", decode(&a.ClientSecret, str)},
		{"clientAuth", decode(&a.ClientAuth, str)},
		{"privateKeyFile", decode(&a.PrivateKeyFile, str)},
		{"keyId", decode(&a.KeyID, str)},
		{"assertionFile", decode(&a.AssertionFile, str)},
		{"issuer", decode(&a.Issuer, str)},
		{"scopes", decode(&a.Scopes, "an array of strings")},
		{"dpop", decode(&a.DPoP, "true or false")},
		{"idpTokenEndpoint", decode(&a.IdPTokenEndpoint, str)},
		{"idpClientId", decode(&a.IdPClientID, str)},
		{"idpClientSecret", decode(&a.IdPClientSecret, str)},
		{"subjectTokenFile", decode(&a.SubjectTokenFile, str)},
	})
	return a
}

// fields lists the auth entry's expandable strings with their keys.
func (a *AuthConfig) fields() map[string]*string {
	return map[string]*string{
		"auth.clientId": &a.ClientID, "auth.clientSecret": &a.ClientSecret,
		"auth.privateKeyFile": &a.PrivateKeyFile, "auth.assertionFile": &a.AssertionFile, "auth.issuer": &a.Issuer,
		"auth.idpTokenEndpoint": &a.IdPTokenEndpoint, "auth.idpClientId": &a.IdPClientID,
		"auth.idpClientSecret": &a.IdPClientSecret, "auth.subjectTokenFile": &a.SubjectTokenFile,
	}
}

// check reports what makes the entry unusable.
func (a *AuthConfig) check(problem func(key, format string, args ...any)) {
	if a.ClientID == "" {
		problem("auth.clientId", "required")
	}
	method := a.method()
	switch method {
	case "basic", "post":
		if a.ClientSecret == "" {
			problem("auth.clientSecret", "required with clientAuth %q", method)
		}
	case "private_key_jwt":
		if a.PrivateKeyFile == "" {
			problem("auth.privateKeyFile", "required with clientAuth \"private_key_jwt\"")
		}
	case "none":
	default:
		problem("auth.clientAuth", "%q: want basic, post, private_key_jwt or none", a.ClientAuth)
	}
	if a.Issuer != "" && a.Issuer != oauth.AnyIssuer && !issuerURL(a.Issuer) {
		problem("auth.issuer", "%q: want the authorization server's https URL, without query or fragment, or \"*\"", a.Issuer)
	}
	files := map[string]string{"auth.privateKeyFile": a.PrivateKeyFile}
	switch a.Grant {
	case "client_credentials":
		if method == "none" {
			problem("auth.clientAuth", "a client_credentials grant needs client authentication")
		}
	case "jwt_bearer":
		if a.AssertionFile == "" {
			problem("auth.assertionFile", "required for a jwt_bearer grant")
		}
		files["auth.assertionFile"] = a.AssertionFile
	case "enterprise":
		for _, f := range []struct{ key, v string }{
			{"auth.idpTokenEndpoint", a.IdPTokenEndpoint}, {"auth.idpClientId", a.IdPClientID}, {"auth.subjectTokenFile", a.SubjectTokenFile},
		} {
			if f.v == "" {
				problem(f.key, "required for an enterprise grant")
			}
		}
		files["auth.subjectTokenFile"] = a.SubjectTokenFile
	case "":
		problem("auth.grant", "required: client_credentials, jwt_bearer or enterprise")
	default:
		problem("auth.grant", "%q: want client_credentials, jwt_bearer or enterprise (an interactive authorization-code flow is for a host with a user: see mcptool/oauth)", a.Grant)
	}
	for _, key := range slices.Sorted(maps.Keys(files)) {
		if path := files[key]; path != "" {
			if _, err := os.Stat(path); err != nil {
				problem(key, "cannot read the file: %v", errors.Unwrap(err))
			}
		}
	}
}

// issuerURL reports whether s can be an issuer identifier (RFC 8414
// section 2): an https URL without query or fragment, or http on a
// loopback address for tests.
func issuerURL(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return false
	}
	ip := net.ParseIP(u.Hostname())
	return u.Scheme == "https" || u.Scheme == "http" && (u.Hostname() == "localhost" || ip != nil && ip.IsLoopback())
}

func (a *AuthConfig) method() string {
	switch {
	case a.ClientAuth != "":
		return a.ClientAuth
	case a.ClientSecret != "":
		return "basic"
	case a.PrivateKeyFile != "":
		return "private_key_jwt"
	}
	return "none"
}

// options returns the provider options the entry makes: the OAuth handler,
// built when the server first asks for a token. With DPoP, the key is made
// now, and the provider adds the proofs to its requests (the handler's
// oauth.Transport).
func (a *AuthConfig) options(server string) []mcpclient.Option {
	var key crypto.Signer
	if a.DPoP {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return []mcpclient.Option{mcpclient.WithOAuth(failed{fmt.Errorf("server %q: DPoP key: %w", server, err)})}
		}
		key = k
	}
	return []mcpclient.Option{mcpclient.WithOAuth(&lazyHandler{bind: a.DPoP, build: func() (sdkauth.OAuthHandler, error) { return a.handler(key) }})}
}

func (a *AuthConfig) clientAuth(id, secret, method string) (oauth.ClientAuth, error) {
	switch method {
	case "post":
		return oauth.ClientAuth{ID: id, Secret: secret, Method: "client_secret_post"}, nil
	case "private_key_jwt":
		pem, err := os.ReadFile(a.PrivateKeyFile)
		if err != nil {
			return oauth.ClientAuth{}, fmt.Errorf("reading auth.privateKeyFile: %w", errors.Unwrap(err))
		}
		key, err := oauth.ParsePrivateKeyPEM(pem)
		if err != nil {
			return oauth.ClientAuth{}, fmt.Errorf("auth.privateKeyFile: %w", err)
		}
		return oauth.ClientAuth{ID: id, Key: key, KeyID: a.KeyID}, nil
	case "none":
		return oauth.ClientAuth{ID: id}, nil
	}
	return oauth.ClientAuth{ID: id, Secret: secret, Method: "client_secret_basic"}, nil
}

func (a *AuthConfig) handler(dpop crypto.Signer) (sdkauth.OAuthHandler, error) {
	c, err := a.clientAuth(a.ClientID, a.ClientSecret, a.method())
	if err != nil {
		return nil, err
	}
	opts := oauth.Options{Issuer: a.Issuer, Scopes: a.Scopes, DPoP: dpop}
	switch a.Grant {
	case "jwt_bearer":
		return oauth.NewJWTBearer(oauth.JWTBearerConfig{AssertionFile: a.AssertionFile, Client: c, Options: opts})
	case "enterprise":
		idpMethod := "basic"
		if a.IdPClientSecret == "" {
			idpMethod = "none"
		}
		idp, err := a.clientAuth(a.IdPClientID, a.IdPClientSecret, idpMethod)
		if err != nil {
			return nil, err
		}
		subject := a.SubjectTokenFile
		return oauth.NewEnterprise(oauth.EnterpriseConfig{
			IdPTokenEndpoint: a.IdPTokenEndpoint, IdPClient: idp,
			SubjectToken: func(context.Context) (string, string, error) { return subjectFromFile(subject) },
			Client:       c, Options: opts,
		})
	}
	return oauth.NewClientCredentials(oauth.ClientCredentialsConfig{Client: c, Options: opts})
}

// lazyHandler builds its handler on first use, so that reading a key or
// token file happens when the server connects and its failure is that
// server's.
type lazyHandler struct {
	bind  bool // the handler binds its tokens (DPoP): see BindTransport
	build func() (sdkauth.OAuthHandler, error)
	once  sync.Once
	h     sdkauth.OAuthHandler
	err   error
}

func (l *lazyHandler) get() (sdkauth.OAuthHandler, error) {
	l.once.Do(func() { l.h, l.err = l.build() })
	return l.h, l.err
}

// BindTransport is the handler's oauth.Transport, which the provider finds
// by this method: built on the first request, for a handler that binds
// its tokens.
func (l *lazyHandler) BindTransport(base http.RoundTripper) http.RoundTripper {
	if !l.bind {
		return base
	}
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		h, err := l.get()
		if err != nil {
			if req.Body != nil {
				req.Body.Close()
			}
			return nil, err
		}
		return oauth.Transport(h, base).RoundTrip(req)
	})
}

// roundTripFunc is a function as an http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

func (l *lazyHandler) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	h, err := l.get()
	if err != nil {
		return nil, err
	}
	return h.TokenSource(ctx)
}

func (l *lazyHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	h, err := l.get()
	if err != nil {
		resp.Body.Close()
		return err
	}
	return h.Authorize(ctx, req, resp)
}

// failed is a handler that can only fail.
type failed struct{ err error }

func (f failed) TokenSource(context.Context) (oauth2.TokenSource, error) { return nil, f.err }
func (f failed) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	resp.Body.Close()
	return f.err
}

// subjectFromFile reads the identity assertion of an enterprise grant, an
// ID token, from path, surrounding white space trimmed. Its errors name the
// file, never its content.
func subjectFromFile(path string) (token, tokenType string, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", "", fmt.Errorf("reading subject token file: %w", err)
	}
	if token = strings.TrimSpace(string(b)); token == "" {
		return "", "", fmt.Errorf("subject token file %s is empty", path)
	}
	return token, oauthex.TokenTypeIDToken, nil
}

// String keeps secrets out of a printed entry.
func (a *AuthConfig) String() string {
	parts := []string{"grant=" + a.Grant, "clientId=" + a.ClientID, "clientAuth=" + a.method()}
	if a.ClientSecret != "" {
		parts = append(parts, "clientSecret=…")
	}
	if a.Issuer != "" {
		parts = append(parts, "issuer="+a.Issuer)
	}
	if a.DPoP {
		parts = append(parts, "dpop")
	}
	return "{" + strings.Join(parts, " ") + "}"
}
