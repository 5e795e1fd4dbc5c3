package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/agent"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/schema"
	"github.com/mcpbridge/mcpbridge/tool"
)

// A local tool is lowered for Config.Vendor, as a toolset lowers its
// catalog: for OpenAI, strict, an optional argument required and nullable;
// the null the model then sends for it is dropped before the tool checks
// its arguments.
func TestLocalToolsLoweredForTheVendor(t *testing.T) {
	type args struct {
		City string `json:"city"`
		Days int    `json:"days,omitempty"`
	}
	var got args
	weather, err := tool.Func("weather", "The forecast.", func(_ context.Context, in args) (string, error) {
		got = in
		return "sunny", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	model := &scripted{turns: []func(llm.Request) llm.Message{
		calls(tc("1", "weather", `{"city": "Oslo", "days": null}`)),
		answer("Sunny."),
	}}
	a, err := agent.New(agent.Config{Model: model, Tools: []tool.Source{weather}, Vendor: schema.OpenAI})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(context.Background(), []llm.Message{llm.UserText("Weather in Oslo?")})
	if err != nil {
		t.Fatal(err)
	}
	sent := model.seen[0].Tools[0]
	if !sent.Strict || !strings.Contains(string(sent.InputSchema), `"required":["city","days"]`) {
		t.Errorf("sent %s, strict %v; want it lowered for OpenAI, strict", sent.InputSchema, sent.Strict)
	}
	if r := toolResult(t, res.Messages, "1").Text(); r != "sunny" || got.City != "Oslo" {
		t.Errorf("the call answered %q with %+v; want the null of an optional argument dropped", r, got)
	}
}
