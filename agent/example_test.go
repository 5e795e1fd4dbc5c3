package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/agent"
	"github.com/mcpbridge/mcpbridge/codemode"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/schema"
	"github.com/mcpbridge/mcpbridge/tool"
)

// newNotes returns the MCP server of the Examples, built with go-sdk:
// notes kept in memory, to add and to search. A real server is reached
// with mcptool.FromCommand or mcptool.FromURL, or many with package toolset.
func newNotes() *mcp.Server {
	type note struct {
		Title string   `json:"title" jsonschema:"the note's title"`
		Body  string   `json:"body" jsonschema:"what to remember"`
		Tags  []string `json:"tags,omitempty" jsonschema:"tags to find it by"`
	}
	type query struct {
		Query string `json:"query" jsonschema:"words of the title"`
	}
	var mu sync.Mutex
	var notes []note
	reply := func(text string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1"},
		&mcp.ServerOptions{Instructions: "Search the notes before adding one twice."})
	mcp.AddTool(s, &mcp.Tool{Name: "add_note", Description: "Add a note."},
		func(_ context.Context, _ *mcp.CallToolRequest, n note) (*mcp.CallToolResult, any, error) {
			mu.Lock()
			defer mu.Unlock()
			notes = append(notes, n)
			return reply(fmt.Sprintf("added note #%d: %s", len(notes), n.Title)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "search_notes", Description: "Find notes by their title."},
		func(_ context.Context, _ *mcp.CallToolRequest, q query) (*mcp.CallToolResult, any, error) {
			mu.Lock()
			defer mu.Unlock()
			var found []string
			for i, n := range notes {
				if strings.Contains(strings.ToLower(n.Title), strings.ToLower(q.Query)) {
					found = append(found, fmt.Sprintf("#%d %s %v", i+1, n.Title, n.Tags))
				}
			}
			return reply(strings.Join(found, "\n")), nil, nil
		})
	return s
}

// An agent on an MCP server's tools. The model here is scripted (its code
// is in this package's tests; Example_ownModel shows a whole program with a
// model of one's own); a real one is llm/openai.New or llm/anthropic.New.
func Example() {
	ctx := context.Background()
	notes := mcptool.FromServer(newNotes(), &mcptool.Options{Name: "notes"})
	if err := notes.Connect(ctx); err != nil {
		log.Fatal(err)
	}
	defer notes.Close()

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
// system prompt, and the model loads the skill it needs. A provider whose
// server publishes skills (the MCP Skills extension) brings them so; here
// a Set of the host's own brings one.
func Example_skills() {
	review := tool.Set{Servers: map[string]tool.Server{"notes": {
		Instructions: "Search the notes before adding one twice.",
		Skills: []tool.Skill{{
			Name:        "weekly-review",
			URI:         "skill://weekly-review/SKILL.md",
			Description: "Review the week's notes and write a short summary note tagged review.",
			Load: func(context.Context) (string, map[string]int64, error) {
				return "1. Search the week's notes.\n2. Add one note tagged review.", map[string]int64{"TAGS.md": 5}, nil
			},
			ReadFile: func(_ context.Context, path string) ([]byte, error) {
				if path != "TAGS.md" {
					return nil, fmt.Errorf("no file %s", path)
				}
				return []byte("work\n"), nil
			},
		}},
	}}}

	model := &scripted{turns: []func(llm.Request) llm.Message{
		func(req llm.Request) llm.Message {
			_, instructions, _ := strings.Cut(req.System, "## ")
			instructions, _, _ = strings.Cut(instructions, "\n")
			_, skill, _ := strings.Cut(req.System, "\n- ")
			fmt.Println("in the system prompt: " + instructions + ", then " + skill)
			return llm.Message{ToolCalls: []llm.ToolCall{{ID: "1", Name: "load_skill", Arguments: json.RawMessage(`{"skill": "notes/weekly-review"}`)}}}
		},
		func(req llm.Request) llm.Message {
			last := req.Messages[len(req.Messages)-1]
			return llm.Message{Parts: []tool.Part{tool.TextPart{Text: last.Text()}}}
		},
	}}
	a, err := agent.New(agent.Config{Model: model, Tools: []tool.Source{review}})
	if err != nil {
		log.Fatal(err)
	}
	res, err := a.Run(context.Background(), []llm.Message{llm.UserText("Do my weekly review.")})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text)
	// Output:
	// in the system prompt: MCP server: notes, then notes/weekly-review: Review the week's notes and write a short summary note tagged review.
	// Skill notes/weekly-review, from MCP server notes:
	//
	// 1. Search the week's notes.
	// 2. Add one note tagged review.
	//
	// Its other files, read with read_skill_file: TAGS.md (5 bytes)
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

// In code mode the model writes JavaScript against the tools, each an
// async function, instead of calling them one turn at a time; the script's
// calls pass the same policy and checks as the model's own. Code mode
// plugs in from package codemode (Config.Code), so that an agent without
// it builds no JavaScript interpreter.
func ExampleConfig_codeMode() {
	type pair struct {
		X float64 `json:"x"`
		Y float64 `json:"y"`
	}
	add, err := tool.Func("add", "Add two numbers.", func(_ context.Context, p pair) (float64, error) { return p.X + p.Y, nil })
	if err != nil {
		log.Fatal(err)
	}
	model := &scripted{turns: []func(llm.Request) llm.Message{
		calls(llm.ToolCall{ID: "1", Name: "run_code", Arguments: json.RawMessage(
			`{"code": "let s = 0; for (const n of [1, 2, 3]) s = await tools.local.add({x: s, y: n}); return s"}`)}),
		func(req llm.Request) llm.Message {
			return llm.Message{Parts: []tool.Part{tool.TextPart{Text: req.Messages[len(req.Messages)-1].Text()}}}
		},
	}}
	a, err := agent.New(agent.Config{Model: model, Tools: []tool.Source{add}, Code: codemode.Config{}})
	if err != nil {
		log.Fatal(err)
	}
	res, err := a.Run(context.Background(), []llm.Message{llm.UserText("What is 1 + 2 + 3?")})
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range model.seen[0].Tools {
		fmt.Println("offered:", d.Name)
	}
	fmt.Println(res.Text)
	// Output:
	// offered: run_code
	// offered: describe_tools
	// 3 tool calls (local.add 3).
	// Returned: 6
}

// New checks a Config before any run, refusing what could not work or
// would lift a bound; the Agent it returns may Run any number of times,
// each run taking the sources' tools afresh.
func ExampleNew() {
	for _, bad := range []agent.Config{
		{System: "You report the weather."},
		{Model: fakeModel{}, Vendor: "mistral"},
		{Model: fakeModel{}, MaxSteps: -1},
	} {
		_, err := agent.New(bad)
		fmt.Println(err)
	}

	type weatherArgs struct {
		City string `json:"city"`
	}
	weather, err := tool.Func("get_weather", "Current weather in a city.",
		func(_ context.Context, in weatherArgs) (string, error) { return "18°C in " + in.City, nil })
	if err != nil {
		log.Fatal(err)
	}
	a, err := agent.New(agent.Config{
		Model:  fakeModel{}, // llm/openai.New, llm/anthropic.New
		System: "You report the weather.",
		Tools:  []tool.Source{weather},
		Vendor: schema.OpenAI, // the model's: local tools' schemas are lowered for it
	})
	if err != nil {
		log.Fatal(err)
	}
	res, err := a.Run(context.Background(), []llm.Message{llm.UserText("Weather in Lisbon?")})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text)
	// Output:
	// agent: no model
	// agent: Vendor: schema: unknown vendor "mistral" (want openai, anthropic or gemini)
	// agent: MaxSteps -1 is negative: the step limit cannot be lifted
	// The tool said: 18°C in Lisbon
}
