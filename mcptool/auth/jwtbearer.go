package auth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
)

// AssertionSource returns the JWT to present in a JWT-bearer grant.
// audience is the issuer identifier of the authorization server that will
// receive it, for sources that mint assertions on demand; a source that
// reads a token issued elsewhere (a Kubernetes or cloud workload identity
// token) may ignore it.
type AssertionSource func(ctx context.Context, audience string) (string, error)

// AssertionFromFile returns an [AssertionSource] that reads the assertion
// from path each time (workload identity tokens are rotated in place),
// trimming surrounding white space. Its errors name the file, never its content.
func AssertionFromFile(path string) AssertionSource {
	return func(context.Context, string) (string, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("reading assertion file: %w", err)
		}
		a := strings.TrimSpace(string(b))
		if a == "" {
			return "", fmt.Errorf("assertion file %s is empty", path)
		}
		return a, nil
	}
}

// JWTBearerConfig configures [NewJWTBearer].
type JWTBearerConfig struct {
	// Assertion supplies the JWT, e.g. [AssertionFromFile]. Required.
	Assertion AssertionSource
	// Client identifies (and, if confidential, authenticates) the client.
	// Use [PublicClient] for the common workload identity case where the
	// assertion alone authenticates. Required.
	Client ClientAuth
	Options
}

// NewJWTBearer returns a handler for the JWT-bearer authorization grant
// (RFC 7523 section 2.1; MCP workload identity federation, SEP-1933): the
// host holds a JWT issued by a trusted identity provider (a Kubernetes
// service account token, a cloud workload identity token, a CI job token)
// and trades it for an access token with
// grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer.
//
// A refused grant (invalid_grant, invalid_scope, unauthorized_client) is
// reported, not retried, and no other grant is tried.
func NewJWTBearer(cfg JWTBearerConfig) (sdkauth.OAuthHandler, error) {
	if cfg.Assertion == nil {
		return nil, errors.New("auth: jwt bearer: an AssertionSource is required")
	}
	if cfg.Client == nil {
		return nil, errors.New("auth: jwt bearer: a ClientAuth is required (PublicClient if the assertion is the only credential)")
	}
	grant := func(ctx context.Context, info *serverInfo, scopes []string) (url.Values, error) {
		assertion, err := cfg.Assertion(ctx, info.asm.Issuer)
		if err != nil {
			return nil, &Error{Step: StepAssertion, Err: err}
		}
		return jwtBearerForm(info, assertion, scopes), nil
	}
	return newGrantHandler("jwt bearer", cfg.Options, cfg.Client, grant)
}

// jwtBearerForm is the token request of the JWT-bearer grant (RFC 7523
// section 2.1) with assertion.
func jwtBearerForm(info *serverInfo, assertion string, scopes []string) url.Values {
	form := grantForm(GrantJWTBearer, info, scopes)
	form.Set("assertion", assertion)
	return form
}
