package agent

import (
	"context"

	"github.com/mcpbridge/mcpbridge/tool"
)

// host gives a call's context what the host answers for its user, so that
// whatever serves the call asks there: [Config.Elicit], through
// [tool.WithElicitor]. An MCP provider asks it for the requests its server
// makes during the call, provided the provider declared elicitation
// (an mcptool.Options.Elicitor, which answers the requests that
// come outside a run): the capability is declared as the connection is
// made, before any run.
func (a *Agent) host(ctx context.Context) context.Context {
	if a.cfg.Elicit == nil {
		return ctx
	}
	return tool.WithElicitor(ctx, a.cfg.Elicit)
}
