package main_test

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
)

// serve in front of a server that forgets its session after every call and
// answers the next request 404 with a JSON-RPC error, as the Python SDK
// does for a session that is over: the gateway opens a new session each
// time, and every read-only call through it is served. Before, it kept the
// forgotten session, and every call after the first failed.
func TestServeOpensAForgottenSessionAnew(t *testing.T) {
	s, srv := hostile.Start(t, "forgets-session")
	config := writeConfig(t, t.TempDir(), "mcp.json", `{"mcpServers": {"py": {"url": "`+srv.URL+`", "required": true}}}`)
	url, _, _ := startServe(t, "--config", config)
	cs, _ := connectServe(t, url, "")
	for i := range 4 {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "py_peek", Arguments: map[string]any{}})
		if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "peeked" {
			t.Fatalf("call %d: %+v, %v", i+1, res, err)
		}
	}
	if n := s.Count("initialize"); n != 4 {
		t.Errorf("%d sessions opened for 4 calls, want one each", n)
	}
}
