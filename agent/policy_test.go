package agent_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/mcpbridge/mcpbridge/agent"
	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/policy"
	"github.com/mcpbridge/mcpbridge/tool"
)

// Proves that a policy holds under every name a tool is offered or called
// by, with no resolver of the host's: over a toolset, whose names are
// namespaced (fs_delete_note), a pattern on the tool's own name refuses the
// namespaced name and the alias and keeps the tool out of the offer; over a
// single provider, a pattern on the alias holds for a call by the plain name.
func TestPolicyHoldsUnderEveryName(t *testing.T) {
	srv := httptest.NewServer(demo.HTTPHandler())
	defer srv.Close()
	ts, err := catalog.Start(context.Background(), &config.Config{Servers: []config.Server{{Name: "fs", URL: srv.URL}}})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	notes := demoProvider(t)

	for _, tc := range []struct {
		name   string
		cfg    agent.Config
		deny   string
		calls  []string
		hidden string
	}{
		{"toolset", agent.Config{Tools: []tool.Source{ts}}, "delete_*",
			[]string{"fs_delete_note", "mcp__fs__delete_note"}, "fs_delete_note"},
		{"provider", agent.Config{Tools: []tool.Source{notes}}, "mcp__notes__delete_*",
			[]string{"delete_note", "mcp__notes__delete_note"}, "delete_note"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gate, err := policy.New(policy.Config{Deny: []string{tc.deny}})
			if err != nil {
				t.Fatal(err)
			}
			var script []llm.ToolCall
			for i, name := range tc.calls {
				script = append(script, llm.ToolCall{ID: string(rune('a' + i)), Name: name, Arguments: []byte(`{"id": 1}`)})
			}
			model := &scripted{turns: []func(llm.Request) llm.Message{calls(script...), answer("ok")}}
			cfg := tc.cfg
			cfg.Model, cfg.Policy = model, gate
			a, err := agent.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			res, err := a.Run(context.Background(), []llm.Message{llm.UserText("delete note 1")})
			if err != nil {
				t.Fatal(err)
			}
			for i, name := range tc.calls {
				m := toolResult(t, res.Messages, string(rune('a'+i)))
				if !m.IsError || !strings.Contains(m.Text(), "refused") {
					t.Errorf("call by %q: %q; want it refused", name, m.Text())
				}
			}
			for _, d := range model.seen[0].Tools {
				if d.Name == tc.hidden {
					t.Errorf("the denied tool %q was offered", d.Name)
				}
			}
		})
	}
}
