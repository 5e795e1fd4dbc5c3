package catalog

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/mcptool/oauth"
	"github.com/mcpbridge/mcpbridge/toolset/config"
)

// authOptions returns the provider options a's entry makes: the OAuth
// handler, built when the server first asks for a token. With DPoP, the key
// is made now, and the provider adds the proofs to its requests (the
// handler's oauth.Transport).
func authOptions(a *config.Auth, server string) []mcpclient.Option {
	var key crypto.Signer
	if a.DPoP {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return []mcpclient.Option{mcpclient.WithOAuth(failed{fmt.Errorf("server %q: DPoP key: %w", server, err)})}
		}
		key = k
	}
	return []mcpclient.Option{mcpclient.WithOAuth(&lazyHandler{bind: a.DPoP, build: func() (sdkauth.OAuthHandler, error) { return authHandler(a, key) }})}
}

func clientAuth(a *config.Auth, id, secret, method string) (oauth.ClientAuth, error) {
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

func authHandler(a *config.Auth, dpop crypto.Signer) (sdkauth.OAuthHandler, error) {
	c, err := clientAuth(a, a.ClientID, a.ClientSecret, a.Method())
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
		idp, err := clientAuth(a, a.IdPClientID, a.IdPClientSecret, idpMethod)
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
