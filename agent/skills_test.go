package agent_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/agent"
	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/skills"
)

// A server's skills are one line each in the system prompt, after its
// instructions; the model loads one and reads its file, every read verified.
func TestSkills(t *testing.T) {
	notes := demoProvider(t)
	ctx := context.Background()
	client := skills.New(notes)
	list, err := client.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	model := &scripted{turns: []func(llm.Request) llm.Message{
		calls(tc("load", agent.LoadSkillName, `{"skill": "notes/weekly-review"}`)),
		calls(
			tc("read", agent.ReadSkillFileName, `{"skill": "notes/weekly-review", "path": "references/TAGS.md"}`),
			tc("unlisted", agent.ReadSkillFileName, `{"skill": "notes/weekly-review", "path": "../secrets.md"}`),
			tc("misnamed", agent.LoadSkillName, `{"skill": "notes/weekly_review"}`),
		),
		answer("done"),
	}}
	a, err := agent.New(agent.Config{
		Model:              model,
		System:             "You are a helpful assistant.",
		Handler:            notes.Handler(),
		Definitions:        notes.Tools(),
		ServerInstructions: map[string]string{"notes": notes.Instructions()},
		Skills:             []agent.SkillSet{{Server: "notes", Client: client, Skills: list}},
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(ctx, []llm.Message{llm.UserText("review my week")})
	if err != nil {
		t.Fatal(err)
	}
	system := model.seen[0].System
	own, instr, sk := strings.Index(system, "helpful assistant"), strings.Index(system, "<server_instructions>"), strings.Index(system, "# Skills from MCP servers")
	if !(own >= 0 && own < instr && instr < sk) {
		t.Fatalf("want own prompt, then instructions, then skills:\n%s", system)
	}
	if !strings.Contains(system, "\n- notes/weekly-review: Review the week's notes") {
		t.Errorf("the skill's line is missing:\n%s", system[sk:])
	}
	for _, req := range model.seen[1:] {
		if req.System != system {
			t.Fatal("the system prompt changed between turns")
		}
	}
	for id, want := range map[string]string{
		"load":     "Call list_notes and note_stats",
		"read":     "review: a summary written by the weekly review",
		"unlisted": "../secrets.md",
		"misnamed": `did you mean "notes/weekly-review"?`,
	} {
		m := toolResult(t, res.Messages, id)
		if !strings.Contains(m.Text(), want) {
			t.Errorf("%s: %q, want %q", id, m.Text(), want)
		}
		if fail := id == "unlisted" || id == "misnamed"; m.IsError != fail {
			t.Errorf("%s: error %v, want %v", id, m.IsError, fail)
		}
	}
	if m := toolResult(t, res.Messages, "load"); !strings.Contains(m.Text(), "references/TAGS.md") {
		t.Errorf("load_skill does not list the skill's other files: %q", m.Text())
	}
}

func TestSkillsConfigErrors(t *testing.T) {
	model := &scripted{}
	for _, set := range []agent.SkillSet{
		{Server: "bad label!", Client: skills.New(nil)},
		{Server: "notes"},
	} {
		if _, err := agent.New(agent.Config{Model: model, Skills: []agent.SkillSet{set}}); err == nil {
			t.Errorf("%+v: no error", set)
		}
	}
}

// Under progressive disclosure the skill tools are still offered: the
// system prompt tells the model to use them.
func TestSkillToolsOfferedUnderDisclosure(t *testing.T) {
	notes := demoProvider(t)
	client := skills.New(notes)
	list, err := client.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	model := &scripted{turns: []func(llm.Request) llm.Message{answer("ok")}}
	a, err := agent.New(agent.Config{
		Model: model, Handler: notes.Handler(), Definitions: notes.Tools(), ToolTokenBudget: 1,
		Skills: []agent.SkillSet{{Server: "notes", Client: client, Skills: list}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(context.Background(), []llm.Message{llm.UserText("x")}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range model.seen[0].Tools {
		names = append(names, d.Name)
	}
	want := []string{agent.FindToolsName, agent.LoadToolsName, agent.LoadSkillName, agent.ReadSkillFileName}
	if !slices.Equal(names, want) {
		t.Errorf("offered %v, want %v", names, want)
	}
}

// The shelf caches a loaded skill: load_skill and then read_skill_file, in
// turns of their own, read SKILL.md from the server once.
func TestSkillLoadedOnce(t *testing.T) {
	var mu sync.Mutex
	reads := map[string]int{}
	srv := demo.New()
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.ReadResourceParams); ok {
				mu.Lock()
				reads[p.URI]++
				mu.Unlock()
			}
			return next(ctx, method, req)
		}
	})
	ctx := context.Background()
	notes, stop, err := connectDemo(ctx, srv)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	client := skills.New(notes)
	list, err := client.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	model := &scripted{turns: []func(llm.Request) llm.Message{
		calls(tc("load", agent.LoadSkillName, `{"skill": "notes/weekly-review"}`)),
		calls(tc("read", agent.ReadSkillFileName, `{"skill": "notes/weekly-review", "path": "references/TAGS.md"}`)),
		answer("done"),
	}}
	a, err := agent.New(agent.Config{
		Model:  model,
		Skills: []agent.SkillSet{{Server: "notes", Client: client, Skills: list}},
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(ctx, []llm.Message{llm.UserText("review my week")})
	if err != nil {
		t.Fatal(err)
	}
	if m := toolResult(t, res.Messages, "read"); m.IsError {
		t.Fatalf("read_skill_file: %s", m.Text())
	}
	mu.Lock()
	defer mu.Unlock()
	if n := reads["skill://weekly-review/SKILL.md"]; n != 1 {
		t.Errorf("SKILL.md read %d times, want 1 (reads: %v)", n, reads)
	}
}
