package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/schema"
	"github.com/mcpbridge/mcpbridge/tool"
)

// A local Go function becomes a tool with a derived schema: a Set of one,
// whose handler checks the arguments before the function runs and
// composes with any other, such as an MCP server's.
func ExampleFunc() {
	type weatherArgs struct {
		City string `json:"city" jsonschema:"the city to report on"`
	}
	weather, err := tool.Func("get_weather", "Current weather in a city.",
		func(_ context.Context, in weatherArgs) (string, error) {
			return "20°C and clear in " + in.City, nil
		})
	if err != nil {
		panic(err)
	}
	remote := tool.HandlerFunc(func(_ context.Context, name string, _ json.RawMessage) (tool.Reply, error) {
		if name != "add" {
			return tool.Reply{}, &tool.UnservedError{Name: name}
		}
		return tool.Text("3"), nil
	})
	h := tool.Compose(weather.Handler, remote)

	ctx := context.Background()
	res, _ := h.Call(ctx, "get_weather", json.RawMessage(`{"city": "Montreal"}`))
	fmt.Println(res.Text())
	res, _ = h.Call(ctx, "add", json.RawMessage(`{"a": 1, "b": 2}`))
	fmt.Println(res.Text())
	_, err = h.Call(ctx, "unknown", nil)
	fmt.Println(err)
	// Output:
	// 20°C and clear in Montreal
	// 3
	// tool "unknown": not served
}

// Join puts local tools together as one Set, which is a Source an agent
// takes as it is.
func ExampleJoin() {
	type none struct{}
	hello, _ := tool.Func("hello", "Says hello.", func(context.Context, none) (string, error) { return "hello", nil })
	bye, _ := tool.Func("bye", "Says goodbye.", func(context.Context, none) (string, error) { return "goodbye", nil })
	set := tool.Join(hello, bye)
	for _, d := range set.Definitions {
		fmt.Println(d.Name+":", d.Description)
	}
	res, _ := set.Handler.Call(context.Background(), "bye", nil)
	fmt.Println(res.Text())
	// Output:
	// hello: Says hello.
	// bye: Says goodbye.
	// goodbye
}

// A host that shows a long call's progress passes a function in the call's
// context; a handler that learns of progress (here an MCP server's
// notifications, through package mcptool) reports it there.
func ExampleWithProgress() {
	server := mcp.NewServer(&mcp.Implementation{Name: "steps", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "count", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for i := 1; i <= 3; i++ {
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(),
					Progress: float64(i), Total: 3, Message: fmt.Sprintf("step %d", i)})
				req.Session.Ping(ctx, nil) // the report handled before the next
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "counted"}}}, nil
		})
	steps := mcptool.FromServer(server, &mcptool.Options{Name: "steps"})
	if err := steps.Connect(context.Background()); err != nil {
		panic(err)
	}
	defer steps.Close()

	ctx := tool.WithProgress(context.Background(), func(p tool.Progress) {
		fmt.Printf("%v/%v %s\n", p.Progress, p.Total, p.Message)
	})
	res, _ := steps.Handler().Call(ctx, "count", nil)
	fmt.Println(res.Text())
	// Output:
	// 1/3 step 1
	// 2/3 step 2
	// 3/3 step 3
	// counted
}

// A tool that needs the user's input asks through the function its call's
// context carries: a host (package agent's Config.Elicit, a terminal)
// puts one there, and an MCP server's questions reach the same function.
func ExampleElicit() {
	size := json.RawMessage(`{"type": "object",
		"properties": {"size": {"type": "string", "enum": ["S", "M", "L"], "default": "M"}},
		"required": ["size"]}`)
	order := tool.HandlerFunc(func(ctx context.Context, _ string, _ json.RawMessage) (tool.Reply, error) {
		a, err := tool.Elicit(ctx, &tool.Elicitation{Message: "Which size?", Schema: size})
		if err != nil {
			return tool.Reply{}, err
		}
		if a.Action != "accept" {
			return tool.Text("no order placed"), nil
		}
		return tool.Text(fmt.Sprintf("ordered size %s", a.Content["size"])), nil
	})
	// The host's side: here, a user who takes every default.
	ctx := tool.WithElicitor(context.Background(), func(_ context.Context, e *tool.Elicitation) (tool.Answer, error) {
		fmt.Println("asked:", e.Message)
		var form struct {
			Properties map[string]struct {
				Default any `json:"default"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(e.Schema, &form); err != nil {
			return tool.Answer{}, err
		}
		content := map[string]any{}
		for name, p := range form.Properties {
			content[name] = p.Default
		}
		return tool.Answer{Action: "accept", Content: content}, nil
	})
	res, _ := order.Call(ctx, "order", nil)
	fmt.Println(res.Text())
	// Output:
	// asked: Which size?
	// ordered size M
}

// A definition as a vendor's API takes it, for a program that calls the
// API with its own client: lower the schema for the vendor first.
func ExampleVendorJSON() {
	def := tool.Definition{Name: "get_weather", Description: "Current weather in a city.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}
	low, err := schema.Lower(schema.OpenAI, def.InputSchema)
	if err != nil {
		panic(err)
	}
	def.InputSchema, def.Strict = low.Schema, low.Strict
	tools, err := tool.VendorJSON(schema.OpenAI, []tool.Definition{def})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(tools))
	// Output:
	// [{"type":"function","function":{"name":"get_weather","description":"Current weather in a city.","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false},"strict":true}}]
}

// Compose tries each handler in turn: the first that serves the name
// answers, and one that declines it (an UnservedError) passes it on. Here
// a handler of the host's own answers every name no tool serves.
func ExampleCompose() {
	type none struct{}
	clock, _ := tool.Func("today", "Today's date.", func(context.Context, none) (string, error) { return "2026-12-01", nil })
	fallback := tool.HandlerFunc(func(_ context.Context, name string, _ json.RawMessage) (tool.Reply, error) {
		return tool.Reply{}, &tool.FailedError{Name: name, Message: "no such tool; call today"}
	})
	h := tool.Compose(clock.Handler, fallback)
	res, _ := h.Call(context.Background(), "today", nil)
	fmt.Println(res.Text())
	_, err := h.Call(context.Background(), "tomorrow", nil)
	fmt.Println(err)
	// Output:
	// 2026-12-01
	// tool "tomorrow" failed: no such tool; call today
}

// lostError is a handler's own error that says what it means by methods.
type lostError struct{}

func (lostError) Error() string        { return "connection lost during the call" }
func (lostError) Retryable() bool      { return false }
func (lostError) OutcomeUnknown() bool { return true }

// Retryable, OutcomeUnknown and Fatal read what a failure means from any
// error in the chain that says it, so that a host decides without knowing
// the handler's types: the errors of package mcptool say it, and so may a
// host's own.
func ExampleRetryable() {
	err := fmt.Errorf("calling send_mail: %w", lostError{})
	fmt.Println("retry:", tool.Retryable(err), "outcome unknown:", tool.OutcomeUnknown(err), "stop:", tool.Fatal(err))
	// Output:
	// retry: false outcome unknown: true stop: false
}

// Text is the reply of one text part, what most local tools answer; a
// reply's Text is what a model that reads text alone is sent.
func ExampleText() {
	reply := tool.Text("18°C and clear")
	fmt.Println(reply.Text(), reply.HasImages())
	reply.Parts = append(reply.Parts, tool.ImagePart{MIMEType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}})
	fmt.Println(reply.Text(), reply.HasImages())
	// Output:
	// 18°C and clear false
	// 18°C and clear
	// [image] true
}

// Fatal says a failure no retry mends: here the command of a server that
// is not installed. A host stops and says so, rather than call again.
func ExampleFatal() {
	notes := mcptool.FromCommand(mcptool.Command{Path: "mcp-server-not-installed"}, &mcptool.Options{Name: "notes"})
	err := notes.Connect(context.Background())
	fmt.Println("stop:", tool.Fatal(err), "retry:", tool.Retryable(err))
	// Output:
	// stop: true retry: false
}

// OutcomeUnknown says a call may or may not have run: here the server
// was cut off while the call was in flight. Sent again, it might run
// twice; a host asks the user, or looks first.
func ExampleOutcomeUnknown() {
	var srv *httptest.Server
	server := mcp.NewServer(&mcp.Implementation{Name: "mail", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "send_mail", Description: "Send a mail."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			srv.CloseClientConnections() // the mail sent, perhaps, and the connection gone
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sent"}}}, nil, nil
		})
	srv = httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer srv.Close()
	mail := mcptool.FromURL(mcptool.HTTP{URL: srv.URL}, &mcptool.Options{Name: "mail"})
	if err := mail.Connect(context.Background()); err != nil {
		panic(err)
	}
	defer mail.Close()

	_, err := mail.Handler().Call(context.Background(), "send_mail", nil)
	fmt.Println("outcome unknown:", tool.OutcomeUnknown(err), "retry:", tool.Retryable(err))
	// Output:
	// outcome unknown: true retry: false
}

// A host that asks its user passes, in each call's context, the function
// that asks: a local tool's Elicit and an MCP server's questions during
// the call reach it. A provider declares that its server may ask with
// Options.Elicitor, which answers for calls that carry none (here it
// declines).
func ExampleWithElicitor() {
	server := mcp.NewServer(&mcp.Implementation{Name: "signup", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "sign_up", Description: "Sign the user up."},
		func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			answer, ok := req.Params.InputResponses["name"].(*mcp.ElicitResult)
			if !ok { // the first round: ask, and be called again with the answer
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{Message: "Your name?",
					RequestedSchema: json.RawMessage(`{"type": "object", "properties": {"name": {"type": "string"}}}`)}}}, nil, nil
			}
			text := "not signed up: " + answer.Action
			if answer.Action == "accept" {
				text = fmt.Sprint("signed up ", answer.Content["name"])
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	decline := func(context.Context, *tool.Elicitation) (tool.Answer, error) {
		return tool.Answer{Action: "decline"}, nil
	}
	signup := mcptool.FromServer(server, &mcptool.Options{Name: "signup", Elicitor: decline})
	if err := signup.Connect(context.Background()); err != nil {
		panic(err)
	}
	defer signup.Close()

	ctx := tool.WithElicitor(context.Background(), func(_ context.Context, e *tool.Elicitation) (tool.Answer, error) {
		fmt.Printf("%s (%s) asks: %s\n", e.Server, e.Tool, e.Message)
		return tool.Answer{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
	})
	res, err := signup.Handler().Call(ctx, "sign_up", nil)
	fmt.Println(res.Text(), err)
	res, err = signup.Handler().Call(context.Background(), "sign_up", nil)
	fmt.Println(res.Text(), err)
	// Output:
	// signup (sign_up) asks: Your name?
	// signed up Ada <nil>
	// not signed up: decline <nil>
}

// A host that runs its own loop (a framework's agent) gives the model what
// the servers bring besides their tools as Brought makes it: their
// instructions and skills for the system prompt, quoted so that a server's
// text cannot pass for the host's, and the tools that load a skill.
func ExampleSet_Brought() {
	set := tool.Set{Servers: map[string]tool.Server{
		"notes": {
			Instructions: "Search before you add a note.",
			Skills: []tool.Skill{{
				Name: "tidy", Description: "Merge notes that say the same.", URI: "skill://tidy/SKILL.md",
				Load: func(context.Context) (string, map[string]int64, error) {
					return "Find twin notes with search_notes, then delete one.", nil, nil
				},
				ReadFile: func(context.Context, string) ([]byte, error) { return nil, fmt.Errorf("no files") },
			}},
		},
	}}
	system, tools, err := set.Brought(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Contains(system, "\n> Search before you add a note.\n"), strings.Contains(system, "- notes/tidy: Merge notes"))
	for _, d := range tools.Definitions {
		fmt.Println(d.Name)
	}
	reply, err := tools.Handler.Call(context.Background(), "load_skill", json.RawMessage(`{"skill": "notes/tidy"}`))
	fmt.Println(reply.Text(), err)
	// Output:
	// true true
	// load_skill
	// read_skill_file
	// Skill notes/tidy, from MCP server notes:
	//
	// Find twin notes with search_notes, then delete one. <nil>
}

// A host tells its model what a failed call means, and stops only when
// going on is pointless: a tool that failed is for the model to read.
func ExampleExplain() {
	text, fatal := tool.Explain("get_note", &tool.FailedError{Name: "get_note", Message: "no note with id 7"})
	fmt.Println(text, fatal)
	text, fatal = tool.Explain("delete_note", &tool.RefusedError{Name: "delete_note", Message: "denied by policy"})
	fmt.Println(text, fatal)
	// Output:
	// The tool ran and failed: no note with id 7 false
	// The call was refused and did not run: denied by policy false
}
