package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/agent"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/testing/oteltest"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/policy"
	"github.com/mcpbridge/mcpbridge/tool"
)

// named is a scripted model that says its name and vendor, as the vendor
// packages' models do.
type named struct{ *scripted }

func (named) Name() string   { return "gpt-test" }
func (named) Vendor() string { return "openai" }

// One trace shows a whole run: invoke_agent, a chat span per turn with the
// model and its tokens, an execute_tool span per call with the MCP tool's
// client span in it, and the policy's refusal in its call's span.
func TestTelemetry(t *testing.T) {
	rec := oteltest.New(t)
	p := demoProvider(t, mcpclient.WithTracerProvider(rec.Traces), mcpclient.WithMeterProvider(rec.Metrics))
	gate, err := policy.New(policy.Config{Deny: []string{"delete_*"}})
	if err != nil {
		t.Fatal(err)
	}
	model := named{&scripted{turns: []func(llm.Request) llm.Message{
		calls(tc("c1", "add_note", `{"title": "milk", "body": "buy milk"}`), tc("c2", "delete_note", `{"id": 1}`)),
		answer("done"),
	}}}
	a, err := agent.New(agent.Config{Model: model, Tools: []tool.Source{p}, Policy: gate,
		TracerProvider: rec.Traces, MeterProvider: rec.Metrics, CallContent: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(context.Background(), []llm.Message{llm.UserText("note milk")}); err != nil {
		t.Fatal(err)
	}

	run := rec.Span(t, "invoke_agent")
	oteltest.Has(t, run, map[string]string{
		"gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-test",
		"gen_ai.usage.input_tokens": "20", "gen_ai.usage.output_tokens": "4",
	})
	chats := rec.Named("chat gpt-test")
	if len(chats) != 2 {
		t.Fatalf("chat spans %v", oteltest.Names(rec.Spans()))
	}
	for _, c := range chats {
		oteltest.ChildOf(t, c, run)
		if c.SpanKind != trace.SpanKindClient {
			t.Errorf("chat kind %v", c.SpanKind)
		}
		oteltest.Has(t, c, map[string]string{"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": "10", "gen_ai.usage.output_tokens": "2"})
	}

	added := rec.Span(t, "execute_tool add_note")
	oteltest.ChildOf(t, added, run)
	oteltest.Has(t, added, map[string]string{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "add_note", "gen_ai.tool.call.id": "c1"})
	if attrs := oteltest.Attrs(added); !strings.Contains(attrs["gen_ai.tool.call.arguments"], "buy milk") || attrs["gen_ai.tool.call.result"] == "" {
		t.Errorf("content %v", attrs)
	}
	oteltest.ChildOf(t, rec.Span(t, "tools/call add_note"), added)

	deleted := rec.Span(t, "execute_tool delete_note")
	oteltest.Has(t, deleted, map[string]string{"error.type": "refused"})
	oteltest.ChildOf(t, rec.Span(t, "check_policy delete_note"), deleted)
	if len(rec.Named("tools/call delete_note")) != 0 {
		t.Error("a refused call reached the server")
	}
	if got := rec.Point(t, "mcpbridge.tool.refusals", map[string]string{"mcpbridge.refusal.reason": "policy"}); got.Value != 1 {
		t.Errorf("refusals %v", got)
	}
}

// A model that fails, and a run at its step limit, say so in error.type.
func TestTelemetryFailures(t *testing.T) {
	rec := oteltest.New(t)
	failing := &scripted{} // its script is empty: every turn fails
	a, _ := agent.New(agent.Config{Model: failing, TracerProvider: rec.Traces})
	if _, err := a.Run(context.Background(), []llm.Message{llm.UserText("hi")}); err == nil {
		t.Fatal("no error")
	}
	oteltest.Has(t, rec.Span(t, "chat"), map[string]string{"error.type": "*errors.errorString", "gen_ai.provider.name": "_OTHER"})

	loop := &scripted{turns: []func(llm.Request) llm.Message{calls(tc("1", "echo", `{}`))}}
	echo, err := tool.Func("echo", "Answers again.", func(context.Context, struct{}) (string, error) { return "again", nil })
	if err != nil {
		t.Fatal(err)
	}
	a, _ = agent.New(agent.Config{Model: loop, Tools: []tool.Source{echo}, MaxSteps: 1, TracerProvider: rec.Traces})
	if _, err := a.Run(context.Background(), []llm.Message{llm.UserText("hi")}); !errors.Is(err, agent.ErrStepLimit) {
		t.Fatalf("got %v", err)
	}
	oteltest.Has(t, rec.Span(t, "invoke_agent"), map[string]string{"error.type": "step_limit"})
}

// Under progressive disclosure, find_tools says how many tools matched and
// load_tools which it loaded.
func TestTelemetryDisclosure(t *testing.T) {
	rec := oteltest.New(t)
	p := demoProvider(t)
	model := &scripted{turns: []func(llm.Request) llm.Message{
		calls(tc("1", agent.FindToolsName, `{"query":"note"}`)),
		calls(tc("2", agent.LoadToolsName, `{"names":["add_note","nope"]}`)),
		answer("ok"),
	}}
	a, _ := agent.New(agent.Config{Model: model, Tools: []tool.Source{p}, ToolTokenBudget: 1, TracerProvider: rec.Traces})
	if _, err := a.Run(context.Background(), []llm.Message{llm.UserText("notes")}); err != nil {
		t.Fatal(err)
	}
	if n := oteltest.Attrs(rec.Span(t, "execute_tool find_tools"))["mcpbridge.disclosure.matches"]; n == "" || n == "0" {
		t.Errorf("find_tools matched %q", n)
	}
	oteltest.Has(t, rec.Span(t, "execute_tool load_tools"), map[string]string{"mcpbridge.disclosure.loaded": `["add_note"]`})
}
