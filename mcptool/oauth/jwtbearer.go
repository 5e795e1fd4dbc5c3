package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
)

// JWTBearerConfig configures [NewJWTBearer]. One of Assertion and
// AssertionFile is required.
type JWTBearerConfig struct {
	// Assertion returns the JWT to present. audience is the issuer
	// identifier of the authorization server that will receive it, for a
	// source that mints assertions on demand; one that reads a token issued
	// elsewhere (a Kubernetes or cloud workload identity token) may ignore
	// it.
	Assertion func(ctx context.Context, audience string) (string, error)
	// AssertionFile is a file holding the JWT, read at every grant
	// (workload identity tokens are rotated in place), surrounding white
	// space trimmed. Errors name the file, never its content.
	AssertionFile string
	// Client identifies the client and, if it has a Secret or a Key,
	// authenticates it. The zero ClientAuth is the common workload
	// identity case, where the assertion alone authenticates.
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
	assertion := cfg.Assertion
	switch {
	case assertion != nil && cfg.AssertionFile != "":
		return nil, errors.New("oauth: jwt bearer: give Assertion or AssertionFile, not both")
	case cfg.AssertionFile != "":
		assertion = assertionFromFile(cfg.AssertionFile)
	case assertion == nil:
		return nil, errors.New("oauth: jwt bearer: Assertion or AssertionFile is required")
	}
	grant := func(ctx context.Context, info *serverInfo, scopes []string) (url.Values, error) {
		a, err := assertion(ctx, info.asm.Issuer)
		if err != nil {
			return nil, &Error{Step: stepAssertion, Err: err}
		}
		return jwtBearerForm(info, a, scopes), nil
	}
	h, err := newGrantHandler("jwt bearer", cfg.Options, cfg.Client, grant, nil)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// assertionFromFile returns a source of assertions that reads path each
// time, trimming surrounding white space. Its errors name the file, never
// its content.
func assertionFromFile(path string) func(context.Context, string) (string, error) {
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

// jwtBearerForm is the token request of the JWT-bearer grant (RFC 7523
// section 2.1) with assertion.
func jwtBearerForm(info *serverInfo, assertion string, scopes []string) url.Values {
	form := grantForm(grantJWTBearer, info, scopes)
	form.Set("assertion", assertion)
	return form
}
