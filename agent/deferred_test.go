package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/mcpbridge/mcpbridge/agent"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/policy"
	"github.com/mcpbridge/mcpbridge/tool"
)

// deferring is a scripted model whose vendor defers tools, or says it
// does not.
type deferring struct {
	*scripted
	defers bool
}

func (d deferring) DefersTools() bool { return d.defers }

func names(defs []tool.Definition) []string {
	var out []string
	for _, d := range defs {
		out = append(out, d.Name)
	}
	return out
}

// With a model whose vendor defers tools, progressive disclosure sends the
// catalog deferred, the policy applied as to every offer, and find_tools
// loads what it lists: the model calls a found tool on its next step, with
// no load_tools step between.
func TestDisclosureDeferredToTheVendor(t *testing.T) {
	defs := catalog201(false)
	handler := tool.HandlerFunc(func(_ context.Context, name string, _ json.RawMessage) (tool.Reply, error) {
		return tool.Text("ran " + name), nil
	})
	deny, err := policy.New(policy.Config{Deny: []string{"service000_action"}})
	if err != nil {
		t.Fatal(err)
	}
	run := func(defers bool, turns ...func(llm.Request) llm.Message) (*agent.Result, *scripted) {
		t.Helper()
		model := &scripted{turns: turns}
		a, err := agent.New(agent.Config{Model: deferring{model, defers}, Policy: deny, Mode: agent.ModeDisclosure,
			Tools: []tool.Source{tool.Set{Definitions: defs, Handler: handler}}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := a.Run(context.Background(), []llm.Message{llm.UserText("weather?")})
		if err != nil {
			t.Fatal(err)
		}
		return res, model
	}
	res, model := run(true,
		calls(tc("1", agent.FindToolsName, `{"query":"weather"}`), tc("2", agent.FindToolsName, `{"query":"service000 action 0"}`)),
		calls(tc("3", "weather_now", `{"city":"Montreal"}`)),
		answer("sunny"))
	first := model.seen[0]
	if got := names(first.Tools); !slices.Equal(got, []string{agent.FindToolsName}) {
		t.Fatalf("first turn's tools: %v, want find_tools alone", got)
	}
	if got := names(first.Deferred); len(got) != 200 || slices.Contains(got, "service000_action") || !slices.Contains(got, "weather_now") {
		t.Fatalf("deferred: %d tools (service000_action denied: %v)", len(got), slices.Contains(got, "service000_action"))
	}
	found := toolResult(t, res.Messages, "1")
	if !slices.Equal(found.References, []string{"weather_now"}) {
		t.Fatalf("find_tools' result references %v, want weather_now", found.References)
	}
	if refs := toolResult(t, res.Messages, "2").References; slices.Contains(refs, "service000_action") || len(refs) == 0 {
		t.Fatalf("find_tools references %v: want hits, and no denied tool", refs)
	}
	if got := toolResult(t, res.Messages, "3").Text(); got != "ran weather_now" {
		t.Fatalf("call: %q", got)
	}
	if got := names(model.seen[1].Tools); !slices.Equal(got, []string{agent.FindToolsName}) {
		t.Fatalf("second turn's tools: %v: loaded tools stay deferred", got)
	}
	// One tool found and called, deferred and loaded: a step less, and
	// every tool found loaded.
	deferred, _ := run(true,
		calls(tc("1", agent.FindToolsName, `{"query":"weather"}`)),
		calls(tc("3", "weather_now", `{"city":"Montreal"}`)),
		answer("sunny"))
	disclosed, _ := run(false,
		calls(tc("1", agent.FindToolsName, `{"query":"weather"}`)),
		calls(tc("2", agent.LoadToolsName, `{"names":["weather_now"]}`)),
		calls(tc("3", "weather_now", `{"city":"Montreal"}`)),
		answer("sunny"))
	if refs := toolResult(t, disclosed.Messages, "1").References; refs != nil {
		t.Fatalf("find_tools references %v for a model that does not defer tools", refs)
	}
	fmt.Printf("progressive disclosure, 201 tools, one tool found and called: %d turns and %d tokens of definitions with the vendor's deferral, %d turns and %d tokens with load_tools\n",
		deferred.Steps, deferred.ToolTokens, disclosed.Steps, disclosed.ToolTokens)
	if deferred.Steps >= disclosed.Steps {
		t.Errorf("the vendor's deferral took %d turns, load_tools %d", deferred.Steps, disclosed.Steps)
	}
}
