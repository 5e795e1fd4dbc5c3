package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/mcptool"
)

func init() {
	register(elicitationDefaults, "elicitation-sep1034-client-defaults")
	register(requestState, "sep-2322-client-request-state")
}

// acceptDefaults answers a form for a user who takes every default
// (SEP-1034): each property of the requested schema that has a default
// gets it.
func acceptDefaults(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	data, err := json.Marshal(req.Params.RequestedSchema)
	if err != nil {
		return nil, err
	}
	var schema struct {
		Properties map[string]struct {
			Default any `json:"default"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		return nil, fmt.Errorf("requested schema: %w", err)
	}
	content := map[string]any{}
	for name, prop := range schema.Properties {
		if prop.Default != nil {
			content[name] = prop.Default
		}
	}
	return &mcp.ElicitResult{Action: "accept", Content: content}, nil
}

// elicitationDefaults calls a tool that asks the client, with
// elicitation/create, for a form whose fields have defaults; the client
// accepts them.
func elicitationDefaults(ctx context.Context, url string, _ scenarioContext) error {
	return callTool(ctx, url, "test_client_elicitation_defaults", mcptool.WithElicitation(acceptDefaults))
}

// requestState calls the multi-round-trip tools of SEP-2322: each answers
// with an input-required result embedding an elicitation request and a
// requestState the client echoes when it calls again, which go-sdk does
// once the provider can answer elicitations.
func requestState(ctx context.Context, url string, _ scenarioContext) error {
	return withProvider(ctx, url, func(p *mcptool.Provider) error {
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
	}, mcptool.WithElicitation(acceptDefaults))
}
