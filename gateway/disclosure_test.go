package gateway_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/gateway"
)

func TestDisclosureServesFindAndCallInPlaceOfTheCatalog(t *testing.T) {
	a, b := newUpstream(t, "a"), newUpstream(t, "b")
	for _, c := range []struct {
		name   string
		opts   *gateway.Options
		suffix string
	}{
		{"for every client", &gateway.Options{Disclosure: true}, ""},
		{"for a client that asks", nil, "?disclosure=1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := start(t, []config.Server{a.config(true), b.config(true)}, c.opts)
			url, _ := serve(t, g)
			cs := connect(t, url+c.suffix, versions[0], nil, nil)
			if got := toolNames(t, cs); !slices.Equal(got, []string{gateway.CallToolName, gateway.FindToolsName}) {
				t.Fatalf("tools %v", got)
			}
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: gateway.FindToolsName, Arguments: map[string]any{"query": "echo text b"}})
			if err != nil {
				t.Fatal(err)
			}
			var found struct {
				Tools []struct {
					Name        string          `json:"name"`
					InputSchema json.RawMessage `json:"inputSchema"`
				} `json:"tools"`
			}
			if err := json.Unmarshal([]byte(text(t, res)), &found); err != nil {
				t.Fatal(err)
			}
			if len(found.Tools) < 2 || found.Tools[0].Name != "b_echo" || !strings.Contains(string(found.Tools[0].InputSchema), `"text"`) {
				t.Fatalf("find_tools: %s", text(t, res))
			}
			res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: gateway.CallToolName, Arguments: map[string]any{"name": "b_echo", "arguments": map[string]any{"text": "via call_tool"}}})
			if err != nil {
				t.Fatal(err)
			}
			if got := text(t, res); got != "b: via call_tool" {
				t.Errorf("call_tool: %q", got)
			}
			res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: gateway.CallToolName, Arguments: map[string]any{"name": "nope"}})
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError || !strings.Contains(text(t, res), "use find_tools") {
				t.Errorf("call_tool of an unknown tool: %q", text(t, res))
			}
		})
	}
	// The full endpoint still lists the catalog.
	g := start(t, []config.Server{a.config(true)}, nil)
	url, _ := serve(t, g)
	if got := toolNames(t, connect(t, url, versions[1], nil, nil)); len(got) != 4 {
		t.Errorf("without disclosure: %v", got)
	}
}
