package main

import (
	"context"
	"fmt"

	"github.com/mcpbridge/mcpbridge/internal/form"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/tool"
)

func init() {
	register(elicitationDefaults, "elicitation-sep1034-client-defaults")
	register(requestState, "sep-2322-client-request-state")
}

// acceptDefaults answers a form for a user who takes every default
// (SEP-1034): each field that has a default gets it.
func acceptDefaults(_ context.Context, e *tool.Elicitation) (tool.Answer, error) {
	fields, err := form.Parse(e.Schema)
	if err != nil {
		return tool.Answer{Action: "decline"}, nil
	}
	content := map[string]any{}
	for _, f := range fields.Fields {
		if f.Default != nil {
			content[f.Name] = f.Default
		}
	}
	return tool.Answer{Action: "accept", Content: content}, nil
}

// elicitationDefaults calls a tool that asks the client, with
// elicitation/create, for a form whose fields have defaults; the client
// accepts them.
func elicitationDefaults(ctx context.Context, url string, _ scenarioContext) error {
	return callTool(ctx, url, "test_client_elicitation_defaults", mcpclient.WithElicitation(acceptDefaults))
}

// requestState calls the multi-round-trip tools of SEP-2322: each answers
// with an input-required result embedding an elicitation request and a
// requestState the client echoes when it calls again, which go-sdk does
// once the provider can answer elicitations.
func requestState(ctx context.Context, url string, _ scenarioContext) error {
	return withProvider(ctx, url, func(p *mcpclient.Provider) error {
		for _, name := range []string{
			"test_mrtr_echo_state",
			"test_mrtr_no_state",
			"test_mrtr_unrelated",
			"test_mrtr_no_result_type",
		} {
			if _, err := p.CallToolResult(ctx, name, nil); err != nil {
				return fmt.Errorf("tools/call %q: %w", name, err)
			}
		}
		return nil
	}, mcpclient.WithElicitation(acceptDefaults))
}
