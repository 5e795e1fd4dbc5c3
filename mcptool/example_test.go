package mcptool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/tool"
)

type greeting struct {
	Name string `json:"name" jsonschema:"whom to greet"`
}

// newGreeter returns the server of the Examples, built with go-sdk: greet
// answers, farewell fails. Any MCP server is reached the same way.
func newGreeter() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "1.0.0"},
		&mcp.ServerOptions{Instructions: "Greet people by the name they give."})
	mcp.AddTool(s, &mcp.Tool{Name: "greet", Description: "Greet someone by name."},
		func(_ context.Context, _ *mcp.CallToolRequest, in greeting) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hello, " + in.Name + "!"}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "farewell", Description: "Say goodbye to someone met before."},
		func(_ context.Context, _ *mcp.CallToolRequest, in greeting) (*mcp.CallToolResult, any, error) {
			return nil, nil, fmt.Errorf("never met %s", in.Name)
		})
	return s
}

// connect returns a provider of server, connected, as ExampleFromServer
// shows.
func connect(server *mcp.Server, o *mcptool.Options) *mcptool.Provider {
	p := mcptool.FromServer(server, o)
	if err := p.Connect(context.Background()); err != nil {
		log.Fatal(err)
	}
	return p
}

// A go-sdk server in this process, as tools for a model: their definitions,
// and one handler that runs the model's calls.
func ExampleFromServer() {
	greeter := mcptool.FromServer(newGreeter(), &mcptool.Options{Name: "greeter"})
	ctx := context.Background()
	if err := greeter.Connect(ctx); err != nil {
		log.Fatal(err)
	}
	defer greeter.Close()

	for _, d := range greeter.Tools() {
		fmt.Printf("%s: %s %s\n", d.Name, d.Description, d.InputSchema)
	}
	res, err := greeter.Handler().Call(ctx, "greet", json.RawMessage(`{"name": "Ada"}`))
	fmt.Println(res.Text(), err)
	// Output:
	// farewell: Say goodbye to someone met before. {"type":"object","properties":{"name":{"type":"string","description":"whom to greet"}},"required":["name"],"additionalProperties":false}
	// greet: Greet someone by name. {"type":"object","properties":{"name":{"type":"string","description":"whom to greet"}},"required":["name"],"additionalProperties":false}
	// Hello, Ada! <nil>
}

// A server started as a subprocess, over stdio. Here it is this test binary
// run again as the greeter (main_test.go); any command works the same way,
// for example mcptool.Command{Path: "npx", Args: []string{"-y",
// "@modelcontextprotocol/server-everything"}}. The server's environment is
// a minimal one (PATH, HOME, the locale) and Env: no secret of the host's
// reaches it unless given.
func ExampleFromCommand() {
	self, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	greeter := mcptool.FromCommand(mcptool.Command{
		Path: self,
		Env:  map[string]string{"MCPTOOL_TEST_SERVER": "greeter"},
	}, &mcptool.Options{Name: "greeter"})
	ctx := context.Background()
	if err := greeter.Connect(ctx); err != nil {
		log.Fatal(err)
	}
	defer greeter.Close() // stops the server and every process it started

	info := greeter.ServerInfo()
	fmt.Println(info.Name, info.Version, len(greeter.Tools()), "tools")
	res, err := greeter.Handler().Call(ctx, "greet", json.RawMessage(`{"name": "Grace"}`))
	fmt.Println(res.Text(), err)
	// Output:
	// greeter 1.0.0 2 tools
	// Hello, Grace! <nil>
}

// A server reached over streamable HTTP (HTTP.SSE chooses the 2024-11-05
// transport). The headers go with every request, and only to the URL's
// origin: a redirect elsewhere is refused.
func ExampleFromURL() {
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return newGreeter() }, nil))
	defer srv.Close()

	greeter := mcptool.FromURL(mcptool.HTTP{
		URL:     srv.URL,
		Headers: map[string]string{"Authorization": "Bearer example-token"},
	}, &mcptool.Options{Name: "greeter"})
	ctx := context.Background()
	if err := greeter.Connect(ctx); err != nil {
		log.Fatal(err)
	}
	defer greeter.Close()

	res, err := greeter.Handler().Call(ctx, "greet", json.RawMessage(`{"name": "Alan"}`))
	fmt.Println(res.Text(), err)
	// Output:
	// Hello, Alan! <nil>
}

// A server reached over a go-sdk transport of the caller's: here one end
// of an in-memory pair, the server at the other.
func ExampleFromTransport() {
	ctx := context.Background()
	serverSide, clientSide := mcp.NewInMemoryTransports()
	session, err := newGreeter().Connect(ctx, serverSide, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()

	greeter := mcptool.FromTransport(clientSide, &mcptool.Options{Name: "greeter"})
	if err := greeter.Connect(ctx); err != nil {
		log.Fatal(err)
	}
	defer greeter.Close()
	fmt.Println(greeter.Name(), greeter.Instructions())
	// Output:
	// greeter Greet people by the name they give.
}

// The handler serves the server's tools to a model: it checks the arguments
// before anything is sent, turns a tool's failure into a FailedError the
// model reads, takes the alias mcp__<server>__<tool>, and declines a name
// it does not serve, so that a composition tries the next handler.
func ExampleProvider_Handler() {
	greeter := connect(newGreeter(), &mcptool.Options{Name: "greeter"})
	defer greeter.Close()
	ctx := context.Background()
	h := greeter.Handler()

	res, _ := h.Call(ctx, "mcp__greeter__greet", json.RawMessage(`{"name": "Ada"}`))
	fmt.Println(res.Text())
	_, err := h.Call(ctx, "greet", json.RawMessage(`{"name": 42}`))
	fmt.Println("refused:", errors.As(err, new(*tool.RefusedError)), err)
	_, err = h.Call(ctx, "farewell", json.RawMessage(`{"name": "Bob"}`))
	fmt.Println("failed:", errors.As(err, new(*tool.FailedError)), err)
	_, err = h.Call(ctx, "weather", nil)
	fmt.Println("unserved:", errors.Is(err, tool.ErrUnserved))
	// Output:
	// Hello, Ada!
	// refused: true tool "greet" refused: argument "name": want string, got integer
	// failed: true tool "farewell" failed: never met Bob
	// unserved: true
}

// CallTool is the host's own call: the result as the server sent it, a
// tool's failure included (IsError), for a host that shows or relays it.
// A model's calls go through the Handler.
func ExampleProvider_CallTool() {
	greeter := connect(newGreeter(), nil)
	defer greeter.Close()
	ctx := context.Background()

	res, err := greeter.CallTool(ctx, "greet", map[string]any{"name": "Ada"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.IsError, res.Content[0].(*mcp.TextContent).Text)
	res, err = greeter.CallTool(ctx, "farewell", greeting{Name: "Bob"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.IsError, res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// false Hello, Ada!
	// true never met Bob
}

// Offer is the provider as a tool.Source: the definitions, the handler that
// serves exactly them, and what the server brings besides (its
// instructions, skills and resources), which joins local tools as one Set.
func ExampleProvider_Offer() {
	greeter := connect(newGreeter(), &mcptool.Options{Name: "greeter"})
	defer greeter.Close()
	ctx := context.Background()

	remote, err := greeter.Offer(ctx)
	if err != nil {
		log.Fatal(err)
	}
	today, err := tool.Func("today", "Today's date.", func(context.Context, struct{}) (string, error) {
		return "2026-12-01", nil
	})
	if err != nil {
		log.Fatal(err)
	}
	tools := tool.Join(remote, today)
	for _, d := range tools.Definitions {
		from := "local"
		if d.Origin.Server != "" {
			from = "server " + d.Origin.Server
		}
		fmt.Println(d.Name, "from", from)
	}
	fmt.Println(tools.Servers["greeter"].Instructions)
	res, _ := tools.Handler.Call(ctx, "today", nil)
	fmt.Println(res.Text())
	// Output:
	// farewell from server greeter
	// greet from server greeter
	// today from local
	// Greet people by the name they give.
	// 2026-12-01
}

// Options.Filter keeps the tools a model may see and call, by the server's
// own names; the others are neither offered nor served.
func ExampleOptions_filter() {
	greeter := connect(newGreeter(), &mcptool.Options{
		Name:   "greeter",
		Filter: func(name string) bool { return name == "greet" },
	})
	defer greeter.Close()

	for _, d := range greeter.Tools() {
		fmt.Println("offered:", d.Name)
	}
	_, err := greeter.Handler().Call(context.Background(), "farewell", json.RawMessage(`{"name": "Bob"}`))
	fmt.Println(err)
	// Output:
	// offered: greet
	// tool "farewell": not served
}

// Options.OnEvent hears each change of the provider's state, and each new
// listing of the server's tools: here the server adds a tool and says so
// (notifications/tools/list_changed).
func ExampleOptions_onEvent() {
	server := newGreeter()
	listed := make(chan struct{})
	greeter := connect(server, &mcptool.Options{
		Name: "greeter",
		OnEvent: func(e mcptool.Event) {
			if e.ToolsChanged {
				fmt.Println("tools changed")
				close(listed)
				return
			}
			fmt.Println("state:", e.State)
		},
	})
	defer greeter.Close()

	mcp.AddTool(server, &mcp.Tool{Name: "wave", Description: "Wave at someone."},
		func(context.Context, *mcp.CallToolRequest, greeting) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "👋"}}}, nil, nil
		})
	<-listed
	for _, d := range greeter.Tools() {
		fmt.Println(d.Name)
	}
	// Output:
	// state: connecting
	// state: ready
	// tools changed
	// farewell
	// greet
	// wave
	// state: closed
}

// Limits bound what a server may cost: here a call the server never answers
// is cancelled on the wire when Limits.Call passes, and fails with a
// TransportError that says so. Whether the tool ran is unknown.
func ExampleLimits() {
	server := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "wait", Description: "Wait for ever."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			<-ctx.Done() // the cancellation the provider sends
			return nil, nil, ctx.Err()
		})
	slow := connect(server, &mcptool.Options{Name: "slow", Limits: mcptool.Limits{Call: 100 * time.Millisecond}})
	defer slow.Close()

	_, err := slow.Handler().Call(context.Background(), "wait", nil)
	var te *mcptool.TransportError
	fmt.Println(errors.As(err, &te) && te.Timeout(), tool.OutcomeUnknown(err))
	// Output:
	// true true
}

// A provider with Reconnect rebuilds a lost connection, here the session a
// server ended. Meanwhile calls fail at once with a retryable error; a call
// caught by the loss is sent again only for a tool annotated read-only or
// idempotent.
func ExampleReconnect() {
	server := newGreeter()
	ready := make(chan struct{}, 2)
	greeter := connect(server, &mcptool.Options{
		Name:      "greeter",
		Reconnect: &mcptool.Reconnect{MinDelay: 10 * time.Millisecond},
		OnEvent: func(e mcptool.Event) {
			fmt.Println("state:", e.State)
			if e.State == mcptool.StateReady {
				ready <- struct{}{}
			}
		},
	})
	defer greeter.Close()
	<-ready

	for s := range server.Sessions() {
		s.Close() // as a server that restarts would
	}
	<-ready
	res, err := greeter.Handler().Call(context.Background(), "greet", json.RawMessage(`{"name": "Ada"}`))
	fmt.Println(res.Text(), err)
	// Output:
	// state: connecting
	// state: ready
	// state: reconnecting
	// state: ready
	// Hello, Ada! <nil>
	// state: closed
}

// ToReply turns an MCP result into what a model reads: text as it is, and
// for what a model cannot read, a one-line note instead of base64.
func ExampleToReply() {
	res := &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "the recording"},
		&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF")},
	}}
	fmt.Println(mcptool.ToReply(res).Text())
	// Output:
	// ["the recording","[audio content (audio/wav) not shown to the model]"]
}

// Resources lists what a server has to read, to show a person;
// ReadResource reads one.
func ExampleProvider_ReadResource() {
	server := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "1"}, nil)
	server.AddResource(&mcp.Resource{URI: "docs://readme", Name: "readme", MIMEType: "text/markdown"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
				{URI: req.Params.URI, MIMEType: "text/markdown", Text: "# Docs\n"},
			}}, nil
		})
	docs := connect(server, &mcptool.Options{Name: "docs"})
	defer docs.Close()
	ctx := context.Background()

	resources, err := docs.Resources(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range resources {
		fmt.Println(r.URI, r.MIMEType)
	}
	res, err := docs.ReadResource(ctx, "docs://readme")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(res.Contents[0].Text)
	// Output:
	// docs://readme text/markdown
	// # Docs
}

// Prompts lists a server's prompts.
func ExampleProvider_Prompts() {
	server := mcp.NewServer(&mcp.Implementation{Name: "writer", Version: "1"}, nil)
	server.AddPrompt(&mcp.Prompt{Name: "summarize", Description: "Summarize a text in one line."},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{}, nil
		})
	writer := connect(server, &mcptool.Options{Name: "writer"})
	defer writer.Close()

	prompts, err := writer.Prompts(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range prompts {
		fmt.Println(p.Name+":", p.Description)
	}
	// Output:
	// summarize: Summarize a text in one line.
}

// newBoard returns a go-sdk server with an MCP App: the tool show_board
// names its interface, a ui:// resource of HTML, in its _meta.
func newBoard() *mcp.Server {
	const uri, mime = "ui://board/app.html", "text/html;profile=mcp-app"
	server := mcp.NewServer(&mcp.Implementation{Name: "board", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{
		Name:        "show_board",
		Description: "Show the board.",
		Meta:        mcp.Meta{"ui": map[string]any{"resourceUri": uri}},
	}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "the board, as text"}}}, nil, nil
	})
	server.AddResource(&mcp.Resource{URI: uri, Name: "board", MIMEType: mime},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
				{URI: uri, MIMEType: mime, Text: "<!DOCTYPE html><p>The board</p>"},
			}}, nil
		})
	return server
}

// A host that renders MCP Apps declares so (Options.Apps), finds a tool's
// interface in its definition, and reads it with the Content-Security-Policy
// to frame it under: nothing but inline script and style unless the server
// declares more. Package apphost renders it in a browser.
func ExampleProvider_ReadApp() {
	board := connect(newBoard(), &mcptool.Options{Name: "board", Apps: true})
	defer board.Close()

	for _, d := range board.Tools() {
		uri := d.App().ResourceURI
		if uri == "" {
			continue
		}
		app, err := board.ReadApp(context.Background(), uri)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(d.Name, app.URI, app.HTML)
		for _, directive := range strings.Split(app.CSP.Policy(), "; ")[:3] {
			fmt.Println(directive)
		}
	}
	// Output:
	// show_board ui://board/app.html <!DOCTYPE html><p>The board</p>
	// default-src 'none'
	// script-src 'unsafe-inline'
	// style-src 'unsafe-inline'
}

// Options.Roots declares where the server may work; none is declared
// unless given, since a server may take its client's roots in place of the
// directories it was started with. Each directory is a root named by its
// last element; SetRoots changes them, and tells the server (go-sdk lists
// them by URI).
func ExampleOptions_roots() {
	server := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "where", Description: "Where may I work?"},
		func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			roots, ok := req.Params.InputResponses["roots"].(*mcp.ListRootsResult)
			if !ok { // the first round: ask for the roots, and be called again with them
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"roots": &mcp.ListRootsParams{}}}, nil, nil
			}
			var names []string
			for _, r := range roots.Roots {
				names = append(names, r.Name+" "+r.URI)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(names, ", ")}}}, nil, nil
		})
	files := connect(server, &mcptool.Options{Name: "files", Roots: []string{"/home/ada/project"}})
	defer files.Close()

	res, err := files.Handler().Call(context.Background(), "where", nil)
	fmt.Println(res.Text(), err)

	if err := files.SetRoots("/home/ada/project", "/home/ada/notes"); err != nil {
		log.Fatal(err)
	}
	res, err = files.Handler().Call(context.Background(), "where", nil)
	fmt.Println(res.Text(), err)
	// Output:
	// project file:///home/ada/project <nil>
	// notes file:///home/ada/notes, project file:///home/ada/project <nil>
}

// Options.Elicitor answers a server's questions to the user during a call;
// the answer is checked against the form the server asked before it is
// sent. A host asks a person; here every question is accepted with a name.
// The server asks in its result (protocol 2026-07-28), which go-sdk sends
// as an elicitation/create request to a client of an earlier revision.
func ExampleOptions_elicitor() {
	server := mcp.NewServer(&mcp.Implementation{Name: "signup", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "sign_up", Description: "Sign the user up."},
		func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			answer, ok := req.Params.InputResponses["name"].(*mcp.ElicitResult)
			if !ok { // the first round: ask, and be called again with the answer
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{
					Message:         "Your name?",
					RequestedSchema: json.RawMessage(`{"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}`),
				}}}, nil, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s: %v", answer.Action, answer.Content["name"])}}}, nil, nil
		})
	signup := connect(server, &mcptool.Options{
		Name: "signup",
		Elicitor: func(_ context.Context, e *tool.Elicitation) (tool.Answer, error) {
			fmt.Println("asked:", e.Message)
			return tool.Answer{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
	})
	defer signup.Close()

	res, err := signup.Handler().Call(context.Background(), "sign_up", nil)
	fmt.Println(res.Text(), err)
	// Output:
	// asked: Your name?
	// accept: Ada <nil>
}

// cannedModel is an llm.Model that answers every request with its text:
// a host gives its own model (llm/openai, llm/anthropic).
type cannedModel string

func (m cannedModel) Vision() bool { return false }

func (m cannedModel) Generate(context.Context, llm.Request) (*llm.Response, error) {
	return &llm.Response{
		Message:    llm.Message{Role: llm.RoleAssistant, Parts: []tool.Part{tool.TextPart{Text: string(m)}}},
		StopReason: llm.StopEndTurn,
	}, nil
}

// Sampling lets a server ask the host's model during a call, each request
// seen first by Approve (the human in the loop), within bounds on tokens
// and requests.
func ExampleSampling() {
	server := mcp.NewServer(&mcp.Implementation{Name: "poet", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "haiku", Description: "Write a haiku."},
		func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			answer, ok := req.Params.InputResponses["poem"].(*mcp.CreateMessageWithToolsResult)
			if !ok { // the first round: ask the client's model
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"poem": &mcp.CreateMessageParams{
					Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "A haiku on rain."}}},
					MaxTokens: 100,
				}}}, nil, nil
			}
			return &mcp.CallToolResult{Content: answer.Content}, nil, nil
		})
	poet := connect(server, &mcptool.Options{
		Name: "poet",
		Sampling: &mcptool.Sampling{
			Model: cannedModel("Rain on the tin roof"),
			Approve: func(_ context.Context, r *mcptool.SamplingRequest) error {
				fmt.Printf("%s asks the model, during %s: %s\n", r.Server, r.Tool, r.Messages[0].Text())
				return nil // an error refuses the request
			},
		},
	})
	defer poet.Close()

	res, err := poet.Handler().Call(context.Background(), "haiku", nil)
	fmt.Println(res.Text(), err)
	// Output:
	// poet asks the model, during haiku: A haiku on rain.
	// Rain on the tin roof <nil>
}
