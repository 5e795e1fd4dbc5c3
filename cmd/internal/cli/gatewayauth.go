package cli

import (
	"cmp"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/policy"
)

// An oauthConfig is the "oauth" object of a config file's "gateway": the
// endpoint as an OAuth resource server ([gateway.OAuth]).
type oauthConfig struct {
	Issuer    string   `json:"issuer"`
	Resource  string   `json:"resource"`
	Scopes    []string `json:"scopes"`
	JWKSURL   string   `json:"jwksUrl"`
	UserClaim string   `json:"userClaim"`
}

// endpointOptions sets o's OAuth (the flags' values first), rate limit,
// clients (their tokens by name from tokens) and passthrough from the
// section.
func (c gatewayConfig) endpointOptions(o *gateway.Options, flags oauthConfig, tokens map[string]string) error {
	oa := flags
	if c.OAuth != nil {
		oa.Issuer = cmp.Or(oa.Issuer, c.OAuth.Issuer)
		oa.Resource = cmp.Or(oa.Resource, c.OAuth.Resource)
		oa.JWKSURL = cmp.Or(oa.JWKSURL, c.OAuth.JWKSURL)
		oa.UserClaim = cmp.Or(oa.UserClaim, c.OAuth.UserClaim)
		if len(oa.Scopes) == 0 {
			oa.Scopes = c.OAuth.Scopes
		}
	}
	switch {
	case (oa.Issuer == "") != (oa.Resource == ""):
		return Usagef("OAuth needs both an issuer and a resource: --oauth-issuer and --oauth-resource, or the config's \"oauth\"")
	case oa.Issuer == "" && len(oa.Scopes) > 0:
		return Usagef("--oauth-scope goes with OAuth: --oauth-issuer and --oauth-resource, or the config's \"oauth\"")
	case oa.Issuer == "" && oa.UserClaim != "":
		return Usagef("--oauth-user-claim goes with OAuth: --oauth-issuer and --oauth-resource, or the config's \"oauth\"")
	}
	if oa.Issuer != "" {
		o.OAuth = &gateway.OAuth{Issuer: oa.Issuer, Resource: oa.Resource, Scopes: oa.Scopes, JWKSURL: oa.JWKSURL, UserClaim: oa.UserClaim}
	}
	o.RateLimit = c.RateLimit
	for name, cc := range c.Clients {
		// The gateway builds the same policy; a pattern it cannot take is
		// said here as the config's, before anything is started.
		if _, err := policy.New(policy.Config{Allow: cc.Allow, Deny: cc.Deny}); err != nil {
			return Usagef("\"gateway\": client %q: %v", name, err)
		}
	}
	if len(c.Clients)+len(tokens) > 0 {
		o.Clients = make(map[string]gateway.Client, len(c.Clients)+len(tokens))
	}
	for name, cc := range c.Clients {
		o.Clients[name] = cc
	}
	for name, token := range tokens {
		cc := o.Clients[name]
		cc.Token = token
		o.Clients[name] = cc
	}
	o.Passthrough = c.Passthrough
	return nil
}
