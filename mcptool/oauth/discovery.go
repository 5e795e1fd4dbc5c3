package oauth

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// serverInfo is what discovery learns about a protected MCP server.
type serverInfo struct {
	resource string // RFC 8707 resource indicator: the PRM resource, else the server URL
	prm      *oauthex.ProtectedResourceMetadata
	asm      *oauthex.AuthServerMeta
}

// tokenEndpoint is the token endpoint of info's authorization server.
func (info *serverInfo) tokenEndpoint() tokenEndpoint {
	return tokenEndpoint{info.asm.TokenEndpoint, info.asm.Issuer, info.asm.TokenEndpointAuthMethodsSupported}
}

// challenge is what a 401/403 answer says.
type challenge struct {
	errorCode   string   // error= of a Bearer or DPoP challenge
	scopes      []string // scope= of a Bearer or DPoP challenge
	metadataURL string   // resource_metadata=
}

func parseChallenge(resp *http.Response) (challenge, error) {
	var c challenge
	cs, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil {
		return c, err
	}
	for _, ch := range cs {
		if u := ch.Params["resource_metadata"]; u != "" && c.metadataURL == "" {
			c.metadataURL = u
		}
		if ch.Scheme != "bearer" && ch.Scheme != "dpop" {
			continue
		}
		if e := ch.Params["error"]; e != "" && c.errorCode == "" {
			c.errorCode = e
		}
		if s := ch.Params["scope"]; s != "" && c.scopes == nil {
			c.scopes = strings.Fields(s)
		}
	}
	return c, nil
}

// discover finds the protected resource metadata (RFC 9728) of serverURL and
// the metadata (RFC 8414 / OIDC) of the first authorization server it names
// that o trusts, using go-sdk's validated fetchers; it sends nothing to an
// authorization server o does not trust. It follows the MCP 2025-11-25
// order (challenge URL, path-inserted, root) and falls back to the
// 2025-03-26 rules (server origin as issuer, default endpoints).
func discover(ctx context.Context, o *Options, serverURL string, ch challenge) (*serverInfo, error) {
	client := o.client()
	fail := func(err error) error { return &Error{Step: stepDiscovery, Err: err} }
	su, err := url.Parse(serverURL)
	if err != nil {
		return nil, fail(fmt.Errorf("server URL: %v", err))
	}
	su.RawQuery, su.Fragment = "", ""
	serverURL = su.String()

	type candidate struct{ metadataURL, resource string }
	var cands []candidate
	if ch.metadataURL != "" {
		cands = append(cands, candidate{ch.metadataURL, serverURL})
	}
	mu := *su
	mu.Path = "/.well-known/oauth-protected-resource/" + strings.TrimLeft(su.Path, "/")
	cands = append(cands, candidate{mu.String(), serverURL})
	mu.Path = "/.well-known/oauth-protected-resource"
	root := *su
	root.Path = ""
	cands = append(cands, candidate{mu.String(), root.String()})

	info := &serverInfo{resource: serverURL}
	var lastErr error
	for _, c := range cands {
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, c.metadataURL, c.resource, client)
		if err != nil {
			lastErr = err
			continue
		}
		if prm == nil {
			continue
		}
		if len(prm.AuthorizationServers) == 0 {
			return nil, fail(fmt.Errorf("protected resource metadata at %s names no authorization server", c.metadataURL))
		}
		info.prm = prm
		info.resource = prm.Resource
		break
	}
	if ctx.Err() != nil {
		return nil, fail(ctx.Err())
	}
	var issuer string
	if info.prm != nil {
		issuer, err = o.chooseIssuer(serverURL, info.prm.AuthorizationServers)
	} else {
		if ch.metadataURL != "" && lastErr != nil {
			// The server pointed at its metadata and it was unusable: do not guess.
			return nil, fail(lastErr)
		}
		issuer = root.String()
		err = o.trust(serverURL, issuer)
	}
	if err != nil {
		return nil, fail(err)
	}
	asm, err := sdkauth.GetAuthServerMetadata(ctx, issuer, client)
	if err != nil {
		return nil, fail(fmt.Errorf("authorization server %s: %w", issuer, err))
	}
	if asm == nil {
		asm = &oauthex.AuthServerMeta{
			Issuer:                issuer,
			AuthorizationEndpoint: issuer + "/authorize",
			TokenEndpoint:         issuer + "/token",
			RegistrationEndpoint:  issuer + "/register",
		}
	}
	if asm.TokenEndpoint == "" {
		return nil, fail(fmt.Errorf("authorization server %s has no token endpoint", issuer))
	}
	if err := o.trustEndpoint(issuer, asm.TokenEndpoint); err != nil {
		return nil, fail(err)
	}
	info.asm = asm
	return info, nil
}

// requestedScopes picks the scopes to ask for: configured ones, else the
// challenge's, else the resource's scopes_supported; always joined with the
// previously granted ones and those of a step-up challenge.
func requestedScopes(configured []string, ch challenge, info *serverInfo, granted []string) []string {
	var s []string
	switch {
	case len(configured) > 0:
		s = configured
	case len(ch.scopes) > 0:
		s = ch.scopes
	case info.prm != nil:
		s = info.prm.ScopesSupported
	}
	out := union(granted, s)
	if ch.errorCode == "insufficient_scope" {
		out = union(out, ch.scopes)
	}
	return out
}

func union(a, b []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range [][]string{a, b} {
		for _, s := range l {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}
