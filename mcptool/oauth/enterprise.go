package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// The token types of an RFC 8693 token exchange this package sends and reads.
const (
	tokenTypeIDToken = oauthex.TokenTypeIDToken
	tokenTypeIDJAG   = oauthex.TokenTypeIDJAG
)

// EnterpriseConfig configures [NewEnterprise].
type EnterpriseConfig struct {
	// IdPTokenEndpoint is the identity provider's token endpoint. If empty
	// it is discovered from IdPIssuer.
	IdPTokenEndpoint string
	// IdPIssuer is the identity provider's issuer identifier, used to
	// discover its token endpoint when IdPTokenEndpoint is empty.
	IdPIssuer string
	// IdPClient is the MCP client's registration at the identity provider.
	// Its ID is required.
	IdPClient ClientAuth
	// SubjectToken returns the token that proves the user's identity at
	// the identity provider, and its RFC 8693 type: typically the ID token
	// of the host's single sign-on,
	// "urn:ietf:params:oauth:token-type:id_token" (oauthex.TokenTypeIDToken;
	// go-sdk's extauth.PerformOIDCLogin obtains one), or an IdP refresh
	// token, "urn:ietf:params:oauth:token-type:refresh_token". Required.
	SubjectToken func(ctx context.Context) (token, tokenType string, err error)
	// Client is the MCP client's registration at the MCP server's
	// authorization server, which must match the client_id the identity
	// provider writes into the ID-JAG. Its ID is required.
	Client ClientAuth
	Options
}

// NewEnterprise returns a handler for enterprise-managed authorization
// (MCP extension SEP-990, "cross-app access"): the enterprise identity
// provider decides whether the user may use the MCP server, with no consent
// screen. On the server's first 401 the handler
//
//  1. discovers the MCP server's authorization server (RFC 9728, RFC 8414);
//  2. exchanges the user's subject token at the identity provider for an
//     Identity Assertion JWT Authorization Grant (ID-JAG) with RFC 8693
//     token exchange (requested_token_type id-jag, audience the
//     authorization server's issuer, resource the MCP server);
//  3. presents the ID-JAG to the MCP authorization server with the RFC 7523
//     JWT-bearer grant, authenticated as Client.
//
// It differs from go-sdk's extauth.EnterpriseHandler in that both client
// authentications are any [ClientAuth] method (the SDK always posts the
// secret in the body), the MCP authorization server is discovered rather than
// configured, and the token is cached, stored and renewed.
func NewEnterprise(cfg EnterpriseConfig) (sdkauth.OAuthHandler, error) {
	switch {
	case cfg.IdPTokenEndpoint == "" && cfg.IdPIssuer == "":
		return nil, errors.New("oauth: enterprise: IdPTokenEndpoint or IdPIssuer is required")
	case cfg.IdPClient.ID == "":
		return nil, errors.New("oauth: enterprise: IdPClient.ID is required")
	case cfg.SubjectToken == nil:
		return nil, errors.New("oauth: enterprise: SubjectToken is required")
	case cfg.Client.ID == "":
		return nil, errors.New("oauth: enterprise: Client.ID is required")
	}
	idp := &identityProvider{cfg: &cfg}
	grant := func(ctx context.Context, info *serverInfo, scopes []string) (url.Values, error) {
		jag, err := idp.exchange(ctx, info, scopes)
		if err != nil {
			return nil, err
		}
		return jwtBearerForm(info, jag, scopes), nil
	}
	h, err := newGrantHandler("enterprise", cfg.Options, cfg.Client, grant, map[string]ClientAuth{"IdPClient": cfg.IdPClient})
	if err != nil {
		return nil, err
	}
	// The exchange goes through the grant's client: with DPoP, its proofs.
	idp.opts = &h.opts
	return h, nil
}

// identityProvider is the enterprise IdP of an [EnterpriseConfig]. Its
// token endpoint is the configured one, or discovered from its issuer once
// and again after an exchange fails other than with an OAuth error.
type identityProvider struct {
	cfg  *EnterpriseConfig
	opts *Options // the handler's, set up

	mu         sync.Mutex
	discovered *tokenEndpoint
}

// exchange trades the user's subject token for an ID-JAG for the MCP
// server info describes (RFC 8693).
func (p *identityProvider) exchange(ctx context.Context, info *serverInfo, scopes []string) (string, error) {
	at, err := p.endpoint(ctx)
	if err != nil {
		return "", err
	}
	subject, subjectType, err := p.cfg.SubjectToken(ctx)
	if err != nil {
		return "", &Error{Step: stepAssertion, Err: err}
	}
	form := grantForm(grantTokenExchange, info, scopes)
	form.Set("requested_token_type", tokenTypeIDJAG)
	form.Set("audience", info.asm.Issuer)
	form.Set("subject_token", subject)
	form.Set("subject_token_type", subjectType)
	jag, err := p.opts.postToken(ctx, at, form, p.cfg.IdPClient, stepTokenExchange)
	if err != nil {
		if stale(err) {
			p.mu.Lock()
			p.discovered = nil
			p.mu.Unlock()
		}
		return "", err
	}
	if t, _ := jag.Extra("issued_token_type").(string); t != tokenTypeIDJAG {
		return "", &Error{Step: stepTokenExchange, Err: fmt.Errorf("identity provider issued token type %q, want %s", t, tokenTypeIDJAG)}
	}
	return jag.AccessToken, nil
}

// endpoint returns the IdP's token endpoint.
func (p *identityProvider) endpoint(ctx context.Context) (tokenEndpoint, error) {
	if p.cfg.IdPTokenEndpoint != "" {
		return tokenEndpoint{url: p.cfg.IdPTokenEndpoint, issuer: p.cfg.IdPIssuer}, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.discovered != nil {
		return *p.discovered, nil
	}
	meta, err := sdkauth.GetAuthServerMetadata(ctx, p.cfg.IdPIssuer, p.opts.client())
	if err == nil && meta == nil {
		err = fmt.Errorf("no metadata at %s", p.cfg.IdPIssuer)
	}
	if err == nil {
		err = onOrigin(p.cfg.IdPIssuer, meta.TokenEndpoint)
	}
	if err != nil {
		return tokenEndpoint{}, &Error{Step: stepDiscovery, Err: fmt.Errorf("identity provider: %w", err)}
	}
	p.discovered = &tokenEndpoint{meta.TokenEndpoint, meta.Issuer, meta.TokenEndpointAuthMethodsSupported}
	return *p.discovered, nil
}
