package cli

import (
	"cmp"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/policy"
)

// An oauthConfig is the "oauth" object of a config file's "gateway": the
// endpoint as an OAuth resource server ([gateway.OAuth]).
type oauthConfig struct {
	Issuer   string   `json:"issuer"`
	Resource string   `json:"resource"`
	Scopes   []string `json:"scopes"`
	JWKSURL  string   `json:"jwksUrl"`
}

// A rateConfig is a rate limit: requests a second, in bursts of up to
// burst ([gateway.WithRateLimit]).
type rateConfig struct {
	Rate  float64 `json:"rate"`
	Burst int     `json:"burst"`
}

// A clientConfig is what one client, by name, is granted: its own tool
// patterns and rate limit.
type clientConfig struct {
	Allow     []string    `json:"allow"`
	Deny      []string    `json:"deny"`
	RateLimit *rateConfig `json:"rateLimit"`
}

// endpointOptions are the gateway options of the section's OAuth (the
// flags' values first), rate limits, clients and passthrough.
func (c gatewayConfig) endpointOptions(flags oauthConfig) ([]gateway.Option, error) {
	var opts []gateway.Option
	o := flags
	if c.OAuth != nil {
		o.Issuer = cmp.Or(o.Issuer, c.OAuth.Issuer)
		o.Resource = cmp.Or(o.Resource, c.OAuth.Resource)
		o.JWKSURL = cmp.Or(o.JWKSURL, c.OAuth.JWKSURL)
		if len(o.Scopes) == 0 {
			o.Scopes = c.OAuth.Scopes
		}
	}
	switch {
	case (o.Issuer == "") != (o.Resource == ""):
		return nil, Usagef("OAuth needs both an issuer and a resource: --oauth-issuer and --oauth-resource, or the config's \"oauth\"")
	case o.Issuer == "" && len(o.Scopes) > 0:
		return nil, Usagef("--oauth-scope goes with OAuth: --oauth-issuer and --oauth-resource, or the config's \"oauth\"")
	}
	if o.Issuer != "" {
		opts = append(opts, gateway.WithOAuth(gateway.OAuth{Issuer: o.Issuer, Resource: o.Resource, Scopes: o.Scopes, JWKSURL: o.JWKSURL}))
	}
	if r := c.RateLimit; r != nil {
		opts = append(opts, gateway.WithRateLimit("", r.Rate, r.Burst))
	}
	for name, cc := range c.Clients {
		if len(cc.Allow)+len(cc.Deny) > 0 {
			p, err := policy.New(policy.Config{Allow: cc.Allow, Deny: cc.Deny})
			if err != nil {
				return nil, Usagef("\"gateway\": client %q: %v", name, err)
			}
			opts = append(opts, gateway.WithClientPolicy(name, p))
		}
		if r := cc.RateLimit; r != nil {
			opts = append(opts, gateway.WithRateLimit(name, r.Rate, r.Burst))
		}
	}
	if len(c.Passthrough) > 0 {
		opts = append(opts, gateway.WithTokenPassthrough(c.Passthrough...))
	}
	return opts, nil
}
