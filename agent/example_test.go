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
		Model:  model,
		System: "You are a note-taking assistant.", // the server's instructions follow it
		Tools:  []tool.Source{notes},
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

// What a server brings besides its tools comes with them, under the
// server's name: its instructions, then its skills, one line each in the
// system prompt, and the model loads the skill it needs. The demo server
// publishes weekly-review.
func Example_skills() {
	ctx := context.Background()
	notes, stop, err := connectDemo(ctx, demo.New())
	if err != nil {
		log.Fatal(err)
	}
	defer stop()

	model := &scripted{turns: []func(llm.Request) llm.Message{
		func(req llm.Request) llm.Message {
			_, instructions, _ := strings.Cut(req.System, "## ")
			instructions, _, _ = strings.Cut(instructions, "\n")
			_, skill, _ := strings.Cut(req.System, "\n- ")
			fmt.Println("in the system prompt: " + instructions + ", then " + skill)
			return llm.Message{ToolCalls: []llm.ToolCall{{ID: "1", Name: agent.LoadSkillName, Arguments: json.RawMessage(`{"skill": "notes/weekly-review"}`)}}}
		},
		func(req llm.Request) llm.Message {
			last := req.Messages[len(req.Messages)-1]
			first, _, _ := strings.Cut(last.Text(), "\n")
			return llm.Message{Parts: []tool.Part{tool.TextPart{Text: first}}}
		},
	}}
	a, err := agent.New(agent.Config{Model: model, Tools: []tool.Source{notes}})
	if err != nil {
		log.Fatal(err)
	}
	res, err := a.Run(ctx, []llm.Message{llm.UserText("Do my weekly review.")})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text)
	// Output:
	// in the system prompt: MCP server: notes, then notes/weekly-review: Review the week's notes and write a short summary note tagged review.
	// Skill notes/weekly-review, from MCP server notes:
}

// Above Config.ToolTokenBudget (the definitions' JSON size over four), the
// model is not sent the catalog but two tools to search it and load what
// it needs.
func ExampleConfig_toolTokenBudget() {
	type query struct {
		Text string `json:"text"`
	}
	var tools []tool.Set
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
	local := tool.Join(tools...)

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
	// offered: find_tools
	// offered: load_tools
}
