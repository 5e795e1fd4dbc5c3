package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"strings"

	"github.com/mcpbridge/mcpbridge/agent"
	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/skills"
	"github.com/mcpbridge/mcpbridge/tool"
)

// An agent on the demo server's tools. The model here is scripted (its
// code is in this package's tests; Example_ownModel shows a whole program
// with a model of one's own); a real one is llm/openai.New or
// llm/anthropic.New, and a real server is mcptool.FromCommand or
// mcptool.FromURL.
func Example() {
	ctx := context.Background()
	notes, stop, err := connectDemo(ctx, demo.New())
	if err != nil {
		log.Fatal(err)
	}
	defer stop()

	model := &scripted{turns: []func(llm.Request) llm.Message{
		calls(llm.ToolCall{ID: "1", Name: "add_note", Arguments: json.RawMessage(`{"title": "Call Ada", "body": "about the launch", "tags": ["work"]}`)}),
		calls(llm.ToolCall{ID: "2", Name: "search_notes", Arguments: json.RawMessage(`{"query": "ada"}`)}),
		func(req llm.Request) llm.Message {
			last := req.Messages[len(req.Messages)-1]
			return llm.Message{Parts: []tool.Part{tool.TextPart{Text: "Saved: " + last.Text()}}}
		},
	}}
	a, err := agent.New(agent.Config{
		Model:              model,
		System:             "You are a note-taking assistant.",
		Tools:              []tool.Source{notes},
		ServerInstructions: map[string]string{"notes": notes.Instructions()},
	})
	if err != nil {
		log.Fatal(err)
	}
	res, err := a.Run(ctx, []llm.Message{llm.UserText("Remind me to call Ada about the launch.")})
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range res.Messages {
		for _, c := range m.ToolCalls {
			fmt.Printf("model called %s %s\n", c.Name, c.Arguments)
		}
		if m.Role == llm.RoleTool {
			fmt.Printf("tool answered: %s\n", m.Text())
		}
	}
	fmt.Println(res.Text)
	// Output:
	// model called add_note {"title": "Call Ada", "body": "about the launch", "tags": ["work"]}
	// tool answered: added note #1: Call Ada
	// model called search_notes {"query": "ada"}
	// tool answered: #1 Call Ada [work]
	// Saved: #1 Call Ada [work]
}

// The skills a server publishes: one line each in the system prompt, and the
// model loads the one it needs. The demo server publishes weekly-review.
func ExampleSkillSet() {
	ctx := context.Background()
	notes, stop, err := connectDemo(ctx, demo.New())
	if err != nil {
		log.Fatal(err)
	}
	defer stop()

	c := skills.New(notes)
	list, err := c.List(ctx)
	if err != nil {
		log.Fatal(err)
	}
	model := &scripted{turns: []func(llm.Request) llm.Message{
		calls(llm.ToolCall{ID: "1", Name: agent.LoadSkillName, Arguments: json.RawMessage(`{"skill": "notes/weekly-review"}`)}),
		func(req llm.Request) llm.Message {
			last := req.Messages[len(req.Messages)-1]
			first, _, _ := strings.Cut(last.Text(), "\n")
			return llm.Message{Parts: []tool.Part{tool.TextPart{Text: first}}}
		},
	}}
	a, err := agent.New(agent.Config{
		Model:  model,
		Tools:  []tool.Source{notes},
		Skills: []agent.SkillSet{{Server: "notes", Client: c, Skills: list}},
	})
	if err != nil {
		log.Fatal(err)
	}
	_, section, _ := strings.Cut(a.System(), "\n- ")
	fmt.Println("in the system prompt: " + section)
	res, err := a.Run(ctx, []llm.Message{llm.UserText("Do my weekly review.")})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text)
	// Output:
	// in the system prompt: notes/weekly-review: Review the week's notes and write a short summary note tagged review.
	// Skill notes/weekly-review, from MCP server notes:
}

// A server's name, made a label the agent takes, for
// Config.ServerInstructions and SkillSet.Server.
func ExampleLabel() {
	instructions := map[string]string{}
	for _, name := range []string{"notes", "my server/v2", "", "ünï", strings.Repeat("a", 70)} {
		label := agent.Label(name)
		if len(label) < 64 {
			fmt.Printf("%q: %s\n", name, label)
		} else {
			fmt.Printf("%d characters: %d\n", len(name), len(label))
		}
		instructions[label] = "Search before you add."
	}
	_, err := agent.New(agent.Config{Model: &scripted{}, ServerInstructions: instructions})
	fmt.Println("every label taken:", err == nil)
	// Output:
	// "notes": notes
	// "my server/v2": my_server_v2
	// "": _
	// "ünï": _n_
	// 70 characters: 64
	// every label taken: true
}

// Above Config.ToolTokenBudget, as EstimateTokens counts it, the model is
// not sent the catalog but two tools to search it and load what it needs.
func ExampleEstimateTokens() {
	type query struct {
		Text string `json:"text"`
	}
	var tools []tool.Tool
	for _, t := range [][2]string{
		{"search_mail", "Search the user's mail by sender, subject or words in the body."},
		{"search_calendar", "Search the user's calendar for events by title or attendee."},
		{"search_files", "Search the user's files by name or content."},
	} {
		fn, err := tool.Func(t[0], t[1], func(context.Context, query) (string, error) { return "", nil })
		if err != nil {
			log.Fatal(err)
		}
		tools = append(tools, fn)
	}
	local := tool.Local(tools...)
	fmt.Println(agent.EstimateTokens(local.Definitions) > 100)

	model := &scripted{turns: []func(llm.Request) llm.Message{answer("I will look.")}}
	a, err := agent.New(agent.Config{Model: model, Tools: []tool.Source{local}, ToolTokenBudget: 100})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := a.Run(context.Background(), []llm.Message{llm.UserText("When do I meet Ada?")}); err != nil {
		log.Fatal(err)
	}
	for _, d := range model.seen[0].Tools {
		fmt.Println("offered:", d.Name)
	}
	// Output:
	// true
	// offered: find_tools
	// offered: load_tools
}
