package gateway_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/testing/npmtest"
)

// Two servers from npm behind the gateway, server-everything and
// server-memory: go-sdk's client of either generation lists both servers'
// tools and calls each.
func TestServesServersFromNPM(t *testing.T) {
	g := start(t, []config.Server{
		{Name: "everything", Command: npmtest.Bin(t, "mcp-server-everything"), Args: []string{"stdio"}, Required: true},
		{Name: "memory", Command: npmtest.Bin(t, "mcp-server-memory"), Required: true,
			Env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "memory.jsonl")}},
	}, nil)
	url, _ := serve(t, g)
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			cs := connect(t, url, v, nil, nil)
			names := toolNames(t, cs)
			if !slices.Contains(names, "everything_echo") || !slices.Contains(names, "memory_open_nodes") {
				t.Fatalf("tools listed: %v", names)
			}
			call := func(name, args string) string {
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if res.IsError {
					t.Fatalf("%s: %s", name, text(t, res))
				}
				return text(t, res)
			}
			if got := call("everything_echo", `{"message":"hi"}`); got != "Echo: hi" {
				t.Errorf("echo: %q", got)
			}
			call("memory_create_entities", `{"entities":[{"name":"`+v+`","entityType":"version","observations":["spoken"]}]}`)
			if got := call("memory_open_nodes", `{"names":["`+v+`"]}`); !strings.Contains(got, "spoken") {
				t.Errorf("open_nodes: %q", got)
			}
		})
	}
}
