package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// Grant types sent by this package, and by go-sdk's authorization code
// flow ([NewAuthorizationCode]).
const (
	grantAuthorizationCode = "authorization_code"
	grantClientCredentials = "client_credentials"
	grantRefreshToken      = "refresh_token"
	grantJWTBearer         = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	grantTokenExchange     = "urn:ietf:params:oauth:grant-type:token-exchange"
)

const maxTokenResponse = 1 << 20

// tokenEndpoint is where token requests go, as its authorization server's
// metadata describes it.
type tokenEndpoint struct {
	url     string
	issuer  string
	methods []string // token_endpoint_auth_methods_supported
}

// grantForm returns a token request for grantType at the MCP server info
// describes: the resource indicator (RFC 8707) and the scopes, if any.
func grantForm(grantType string, info *serverInfo, scopes []string) url.Values {
	form := url.Values{"grant_type": {grantType}, "resource": {info.resource}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	return form
}

// postToken sends a token request (RFC 6749 section 3.2) with form and
// client authentication ca to at, and returns the token.
// Failures are *[Error] values with the given step; a token endpoint error
// also wraps an *oauth2.RetrieveError carrying its code, so that go-sdk's
// transport recognises invalid_grant.
func (o *Options) postToken(ctx context.Context, at tokenEndpoint, form url.Values, ca ClientAuth, step string) (_ *oauth2.Token, err error) {
	ctx, done := tracing(ctx, at, form.Get("grant_type"), step)
	defer func() { done(err) }()
	tr := &tokenRequest{form: form, header: http.Header{}, at: at}
	if err := ca.apply(tr); err != nil {
		return nil, &Error{Step: step, Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, at.url, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, &Error{Step: step, Err: fmt.Errorf("token endpoint: %v", err)}
	}
	for k, v := range tr.header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := noRedirects(o.client()).Do(req)
	if err != nil {
		// A *url.Error quotes the URL only, never the body; but after a
		// redirect it is the URL the endpoint pointed at, never requested.
		var re *redirectError
		if errors.As(err, &re) {
			err = re
		}
		return nil, &Error{Step: step, Err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenResponse))
	if err != nil {
		return nil, &Error{Step: step, Status: resp.StatusCode, Err: err}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		var e struct {
			Code        string `json:"error"`
			Description string `json:"error_description"`
			URI         string `json:"error_uri"`
		}
		_ = json.Unmarshal(body, &e)
		out := &Error{Step: step, Code: e.Code, Description: e.Description, Status: resp.StatusCode}
		if e.Code != "" {
			out.Err = &oauth2.RetrieveError{Response: resp, ErrorCode: e.Code, ErrorDescription: e.Description, ErrorURI: e.URI}
		}
		return nil, out
	}
	tok, err := parseTokenResponse(resp.Header.Get("Content-Type"), body)
	if err != nil {
		return nil, &Error{Step: step, Status: resp.StatusCode, Err: err}
	}
	return tok, nil
}

// parseTokenResponse decodes a successful token response (RFC 6749 section
// 5.1). All members are kept as the token's extras (scope,
// issued_token_type, id_token...).
func parseTokenResponse(contentType string, body []byte) (*oauth2.Token, error) {
	if mt, _, _ := mime.ParseMediaType(contentType); mt != "" && mt != "application/json" {
		return nil, fmt.Errorf("token response has content type %q, want application/json", mt)
	}
	var raw map[string]any
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, fmt.Errorf("token response is not a JSON object")
	}
	str := func(k string) string { s, _ := raw[k].(string); return s }
	tok := &oauth2.Token{
		AccessToken:  str("access_token"),
		TokenType:    str("token_type"),
		RefreshToken: str("refresh_token"),
	}
	if tok.AccessToken == "" {
		return nil, fmt.Errorf("token response has no access_token")
	}
	var secs int64
	switch v := raw["expires_in"].(type) {
	case float64:
		secs = int64(v)
	case string:
		secs, _ = strconv.ParseInt(v, 10, 64)
	}
	if secs > 0 {
		tok.Expiry = time.Now().Add(time.Duration(secs) * time.Second)
		tok.ExpiresIn = secs
	}
	return tok.WithExtra(raw), nil
}

// tokenScopes returns the scope a token response granted, or nil if it says none.
func tokenScopes(tok *oauth2.Token) []string {
	if s, ok := tok.Extra("scope").(string); ok && s != "" {
		return strings.Fields(s)
	}
	return nil
}
