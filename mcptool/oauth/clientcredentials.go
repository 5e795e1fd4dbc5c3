package oauth

import (
	"context"
	"errors"
	"net/url"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
)

// ClientCredentialsConfig configures [NewClientCredentials].
type ClientCredentialsConfig struct {
	// Client identifies and authenticates the client: an ID with a Secret
	// or a Key. Required.
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
	if cfg.Client.ID == "" {
		return nil, errors.New("oauth: client credentials: Client.ID is required")
	}
	if cfg.Client.method() == methodNone {
		return nil, errors.New("oauth: client credentials: a confidential client (Client.Secret or Client.Key) is required")
	}
	grant := func(_ context.Context, info *serverInfo, scopes []string) (url.Values, error) {
		return grantForm(grantClientCredentials, info, scopes), nil
	}
	h, err := newGrantHandler("client credentials", cfg.Options, cfg.Client, grant, nil)
	if err != nil {
		return nil, err
	}
	return h, nil
}
