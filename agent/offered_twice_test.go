package agent_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/agent"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/tool"
)

// A tool name two sources offer is served by the first; each tool left out
// is said once, as a warning naming the tool, who serves the name and whose
// tool is left out: a local tool that takes a server's name, a second
// server with the first one's tools. Without a Logger, slog.Default() is
// told.
func TestToolsOfferedTwiceAreSaid(t *testing.T) {
	shadow, _ := tool.Func("list_notes", "local list", func(context.Context, struct{}) (string, error) { return "", nil })
	sources := []tool.Source{shadow, demoProvider(t), demoProvider(t, mcpclient.WithName("work"))}
	run := func(logger *slog.Logger) {
		t.Helper()
		model := &scripted{turns: []func(llm.Request) llm.Message{answer("one"), answer("two")}}
		a, err := agent.New(agent.Config{Model: model, Tools: sources, Logger: logger})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := a.Run(context.Background(), []llm.Message{llm.UserText("hi")}); err != nil {
				t.Fatal(err)
			}
		}
	}
	check := func(log string) {
		t.Helper()
		for _, want := range []string{
			`level=WARN msg="agent: a tool name offered twice; the first serves it" tool=list_notes served_by="a local tool" left_out="server \"notes\"'s tool \"list_notes\""`,
			`level=WARN msg="agent: a tool name offered twice; the first serves it" tool=list_notes served_by="a local tool" left_out="server \"work\"'s tool \"list_notes\""`,
			`level=WARN msg="agent: a tool name offered twice; the first serves it" tool=add_note served_by="server \"notes\"'s tool \"add_note\"" left_out="server \"work\"'s tool \"add_note\""`,
		} {
			if n := strings.Count(log, want); n != 1 {
				t.Errorf("said %d times over two runs, want once: %s\nlog:\n%s", n, want, log)
			}
		}
	}
	var given proctest.Buffer
	run(slog.New(slog.NewTextHandler(&given, &slog.HandlerOptions{Level: slog.LevelInfo})))
	check(given.String())

	var def proctest.Buffer
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(&def, &slog.HandlerOptions{Level: slog.LevelDebug})))
	run(nil)
	check(def.String())
}
