package catalog

import (
	"slices"

	"github.com/mcpbridge/mcpbridge/internal/handle"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/toolset/config"
)

// optionsOf returns the core's options the settings of server s make: its
// name, transport, headers, environment, working directory, roots, allowed
// tools, disabled tools (as a tool filter), timeouts, the description cap
// and OAuth. Settings a provider would refuse are passed on, so that
// Connect says so; [config.Config.Validate] says them all at once first.
func optionsOf(s config.Server) []mcpclient.Option {
	opts := []mcpclient.Option{mcpclient.WithName(s.Name)}
	if s.Transport != "" {
		opts = append(opts, mcpclient.WithTransport(mcpclient.TransportKind(s.Transport)))
	}
	if len(s.Headers) > 0 {
		opts = append(opts, mcpclient.WithHeaders(s.Headers))
	}
	if len(s.Env) > 0 {
		opts = append(opts, mcpclient.WithEnv(s.Env))
	}
	if s.Dir != "" {
		opts = append(opts, mcpclient.WithDir(s.Dir))
	}
	if len(s.Roots) > 0 {
		roots := make([]mcpclient.Root, len(s.Roots))
		for i, dir := range s.Roots {
			r, err := mcpclient.RootOf(dir)
			if err != nil {
				r = mcpclient.Root{URI: dir} // refused at Connect, naming it
			}
			roots[i] = r
		}
		opts = append(opts, mcpclient.WithRoots(roots...))
	}
	if s.AllowedTools != nil {
		opts = append(opts, mcpclient.WithAllowedTools(s.AllowedTools...))
	}
	if len(s.DisabledTools) > 0 {
		// A set of its own, so a later change to the config does not reach
		// the provider.
		off := make(map[string]bool, len(s.DisabledTools))
		for _, name := range s.DisabledTools {
			off[name] = true
		}
		opts = append(opts, mcpclient.WithToolFilter(func(name string) bool { return !off[name] }))
	}
	if s.Timeout != 0 {
		opts = append(opts, mcpclient.WithConnectTimeout(s.Timeout))
	}
	if s.CallTimeout != 0 {
		opts = append(opts, mcpclient.WithCallTimeout(s.CallTimeout))
	}
	if s.MaxDescription != 0 {
		opts = append(opts, mcpclient.WithMaxDescription(s.MaxDescription))
	}
	if s.Auth != nil {
		opts = append(opts, authOptions(s.Auth, s.Name)...)
	}
	return opts
}

// providerOf returns an unconnected provider of server s, made as a user
// makes one ([mcptool.FromCommand] for a command, else [mcptool.FromURL],
// with o: the host's options for s, nil for none), and the client core
// behind it. The core has the settings of s and before ahead of o's, so
// that o's fields win, and after them after: what only mcpbridge's own
// code says (notices, the host's side of the gateway, the catalog's own
// callbacks).
func providerOf(s config.Server, o *mcptool.Options, before, after []mcpclient.Option) (*mcptool.Provider, *mcpclient.Provider) {
	var pub *mcptool.Provider
	if s.Command != "" {
		pub = mcptool.FromCommand(mcptool.Command{Path: s.Command, Args: s.Args}, o)
	} else {
		pub = mcptool.FromURL(mcptool.HTTP{URL: s.URL}, o)
	}
	core := handle.Core[mcpclient.Provider](pub)
	core.Around(slices.Concat(optionsOf(s), before), after)
	return pub, core
}
