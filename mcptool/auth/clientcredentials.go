package auth

import (
	"context"
	"errors"
	"net/url"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
)

// ClientCredentialsConfig configures [NewClientCredentials].
type ClientCredentialsConfig struct {
	// Client authenticates the client: [ClientSecretBasic],
	// [ClientSecretPost], [ClientSecret] or [*PrivateKeyJWT]. Required.
	Client ClientAuth
	Options
}

// NewClientCredentials returns a handler for the OAuth 2.0 client
// credentials grant (RFC 6749 section 4.4; MCP extension SEP-1046): a
// machine identity, no user. On the server's first 401 it discovers the
// authorization server (RFC 9728, RFC 8414), asks its token endpoint for a
// token with grant_type=client_credentials, the resource indicator
// (RFC 8707) and the scopes, and caches the token; it asks again before the
// token expires.
func NewClientCredentials(cfg ClientCredentialsConfig) (sdkauth.OAuthHandler, error) {
	if cfg.Client == nil || cfg.Client.ClientID() == "" {
		return nil, errors.New("auth: client credentials: a ClientAuth with a client ID is required")
	}
	if _, ok := cfg.Client.(publicClient); ok {
		return nil, errors.New("auth: client credentials: a confidential client (secret or private key) is required")
	}
	grant := func(_ context.Context, info *serverInfo, scopes []string) (url.Values, error) {
		return grantForm(GrantClientCredentials, info, scopes), nil
	}
	return newGrantHandler("client credentials", cfg.Options, cfg.Client, grant)
}
