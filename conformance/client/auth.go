package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/mcptool/oauth"
)

func init() {
	register(authorizationCode,
		"auth/2025-03-26-oauth-metadata-backcompat",
		"auth/2025-03-26-oauth-endpoint-fallback",
		"auth/authorization-server-migration",
		"auth/basic-cimd",
		"auth/iss-normalized",
		"auth/iss-not-advertised",
		"auth/iss-supported",
		"auth/iss-supported-missing",
		"auth/iss-unexpected",
		"auth/iss-wrong-issuer",
		"auth/metadata-default",
		"auth/metadata-issuer-mismatch",
		"auth/metadata-var1",
		"auth/metadata-var2",
		"auth/metadata-var3",
		"auth/offline-access-not-supported",
		"auth/offline-access-scope",
		"auth/pre-registration",
		"auth/resource-mismatch",
		"auth/scope-from-scopes-supported",
		"auth/scope-from-www-authenticate",
		"auth/scope-omitted-when-undefined",
		"auth/scope-retry-limit",
		"auth/scope-step-up",
		"auth/token-endpoint-auth-basic",
		"auth/token-endpoint-auth-none",
		"auth/token-endpoint-auth-post",
	)
	register(dpop, "auth/dpop", "auth/dpop-nonce")
	register(clientCredentialsBasic, "auth/client-credentials-basic")
	register(clientCredentialsJWT, "auth/client-credentials-jwt")
	register(jwtBearer, "auth/wif-jwt-bearer")
	register(enterprise, "auth/enterprise-managed-authorization")
}

const (
	// redirectURL is the client's redirect URI. Nothing listens on it: the
	// authorizer reads the redirect instead of following it.
	redirectURL = "http://localhost:3000/callback"
	// clientMetadataURL is the client ID metadata document (SEP-991) the
	// suite's authorization servers accept when they support them.
	clientMetadataURL = "https://conformance-test.local/client-metadata.json"
)

// useTool is what every auth scenario does once authorized: connect (which
// lists the tools) and call the suite's test tool.
func useTool(ctx context.Context, url string, opts ...mcpclient.Option) error {
	return callTool(ctx, url, "test-tool", opts...)
}

// authorizationCode runs the OAuth 2.1 authorization code flow. The client
// is identified, in the handler's order, by its metadata document, by the
// pre-registered credentials of the scenario's context, or by dynamic
// registration.
func authorizationCode(ctx context.Context, url string, sc scenarioContext) error {
	h, err := newAuthorizationCode(sc, oauth.Options{})
	if err != nil {
		return err
	}
	return useTool(ctx, url, mcpclient.WithOAuth(h))
}

func newAuthorizationCode(sc scenarioContext, opts oauth.Options) (sdkauth.OAuthHandler, error) {
	cfg := oauth.AuthorizationCodeConfig{
		Authorizer:          readRedirect,
		RedirectURL:         redirectURL,
		ClientIDMetadataURL: clientMetadataURL,
		Registration: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{redirectURL},
			ClientName:   "mcpbridge conformance client",
		},
		RequestRefreshToken: true,
		Options:             opts,
	}
	if sc.ClientID != "" && sc.ClientSecret != "" {
		// The secret is bound to the authorization server that issued it,
		// which the context names (auth/pre-registration).
		cfg.Client = oauth.ClientAuth{ID: sc.ClientID, Secret: sc.ClientSecret}
		cfg.Issuer = sc.Issuer
	}
	return oauth.NewAuthorizationCode(cfg)
}

// readRedirect is the [oauth.Authorizer] of a headless test: it requests
// the authorization URL, which the suite's authorization server answers
// with an immediate redirect to the redirect URI, and returns that
// redirect.
func readRedirect(ctx context.Context, authURL string) (*url.URL, error) {
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	loc, err := resp.Location()
	if err != nil {
		return nil, fmt.Errorf("authorization endpoint answered %s without a redirect", resp.Status)
	}
	return loc, nil
}

// dpop runs the authorization code flow with DPoP-bound tokens: one key
// signs the proofs of the token requests and of every MCP request.
func dpop(ctx context.Context, url string, sc scenarioContext) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	h, err := newAuthorizationCode(sc, oauth.Options{DPoP: key})
	if err != nil {
		return err
	}
	return useTool(ctx, url, mcpclient.WithOAuth(h))
}

// trustMetadata returns the Options of the scenarios that send a credential
// to the token endpoint. The suite starts their authorization server on a
// port of its own, which the scenario's context does not name, so the
// issuer cannot be pinned and the MCP server's metadata is trusted, as a
// host can choose with AnyIssuer; by default mcptool/oauth would refuse an
// authorization server on another origin than the MCP server's.
func trustMetadata() oauth.Options { return oauth.Options{Issuer: oauth.AnyIssuer} }

// clientCredentialsBasic is SEP-1046 with a client secret in the
// Authorization header.
func clientCredentialsBasic(ctx context.Context, url string, sc scenarioContext) error {
	if sc.ClientID == "" || sc.ClientSecret == "" {
		return errors.New("context lacks client_id or client_secret")
	}
	h, err := oauth.NewClientCredentials(oauth.ClientCredentialsConfig{
		Client:  oauth.ClientAuth{ID: sc.ClientID, Secret: sc.ClientSecret, Method: "client_secret_basic"},
		Options: trustMetadata(),
	})
	if err != nil {
		return err
	}
	return useTool(ctx, url, mcpclient.WithOAuth(h))
}

// clientCredentialsJWT is SEP-1046 with a private_key_jwt assertion signed
// by the key of the scenario's context.
func clientCredentialsJWT(ctx context.Context, url string, sc scenarioContext) error {
	if sc.ClientID == "" || sc.PrivateKeyPEM == "" {
		return errors.New("context lacks client_id or private_key_pem")
	}
	key, err := oauth.ParsePrivateKeyPEM([]byte(sc.PrivateKeyPEM))
	if err != nil {
		return err
	}
	client := oauth.ClientAuth{ID: sc.ClientID, Key: key, Algorithm: sc.SigningAlgorithm}
	h, err := oauth.NewClientCredentials(oauth.ClientCredentialsConfig{Client: client, Options: trustMetadata()})
	if err != nil {
		return err
	}
	return useTool(ctx, url, mcpclient.WithOAuth(h))
}

// jwtBearer is workload identity federation (SEP-1933): the valid
// assertion of the context is traded with the JWT-bearer grant.
func jwtBearer(ctx context.Context, url string, sc scenarioContext) error {
	if sc.ValidJWT == "" {
		return errors.New("context lacks valid_jwt")
	}
	h, err := oauth.NewJWTBearer(oauth.JWTBearerConfig{
		Assertion: func(context.Context, string) (string, error) { return sc.ValidJWT, nil },
		Client:    oauth.ClientAuth{ID: sc.ClientID},
		Options:   trustMetadata(),
	})
	if err != nil {
		return err
	}
	return useTool(ctx, url, mcpclient.WithOAuth(h))
}

// enterprise is enterprise-managed authorization (SEP-990): the context's
// ID token is exchanged at the IdP for an ID-JAG, which the MCP
// authorization server trades for an access token.
func enterprise(ctx context.Context, url string, sc scenarioContext) error {
	if sc.IdPIDToken == "" || sc.IdPClientID == "" || sc.ClientID == "" {
		return errors.New("context lacks idp_id_token, idp_client_id or client_id")
	}
	h, err := oauth.NewEnterprise(oauth.EnterpriseConfig{
		IdPTokenEndpoint: sc.IdPTokenEndpoint,
		IdPIssuer:        sc.IdPIssuer,
		IdPClient:        oauth.ClientAuth{ID: sc.IdPClientID},
		SubjectToken: func(context.Context) (string, string, error) {
			return sc.IdPIDToken, oauthex.TokenTypeIDToken, nil
		},
		Client:  oauth.ClientAuth{ID: sc.ClientID, Secret: sc.ClientSecret},
		Options: trustMetadata(),
	})
	if err != nil {
		return err
	}
	return useTool(ctx, url, mcpclient.WithOAuth(h))
}
