package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/tool"
)

// A stdio server, its tools, and calls through the handler composed with a
// local tool. Here the server is the bundled demo, started from this very
// binary; any command works the same way, for example
// mcpclient.FromCommand("npx", []string{"-y", "@modelcontextprotocol/server-memory"}).
func ExampleFromCommand() {
	self, _ := os.Executable()
	notes := mcpclient.FromCommand(self, nil,
		mcpclient.WithName("notes"),
		mcpclient.WithEnv(map[string]string{demo.ChildEnv: "stdio", "GORACE": "atexit_sleep_ms=0"}),
		mcpclient.WithAllowedTools("add_note", "get_note"))
	ctx := context.Background()
	if err := notes.Connect(ctx); err != nil {
		log.Fatal(err)
	}
	defer notes.Close()

	for _, def := range notes.Tools() {
		fmt.Println("tool:", def.Name)
	}
	today, _ := tool.Func("today", "Today's date.", func(context.Context, struct{}) (string, error) {
		return "2026-11-30", nil
	})
	h := tool.Compose(today.Handler, notes.Handler())

	res, _ := h.Call(ctx, "add_note", json.RawMessage(`{"title": "hello", "body": "world"}`))
	fmt.Println(res.Text())
	res, _ = h.Call(ctx, "today", nil)
	fmt.Println(res.Text())
	_, err := h.Call(ctx, "get_note", json.RawMessage(`{"id": 9}`))
	fmt.Println(err)
	// Output:
	// tool: add_note
	// tool: get_note
	// added note #1: hello
	// 2026-11-30
	// tool "get_note" failed: no note with id 9
}

// A server reached over streamable HTTP (a URL whose path ends in /sse
// speaks the legacy SSE transport). Headers go with every request, and only
// to the URL's origin.
func ExampleFromURL() {
	srv := httptest.NewServer(demo.HTTPHandler())
	defer srv.Close()

	notes := mcpclient.FromURL(srv.URL+"/mcp",
		mcpclient.WithName("notes"),
		mcpclient.WithHeaders(map[string]string{"Authorization": "Bearer example-token"}))
	ctx := context.Background()
	if err := notes.Connect(ctx); err != nil {
		log.Fatal(err)
	}
	defer notes.Close()

	fmt.Println(notes.ServerInfo().Name)
	res, err := notes.Handler().Call(ctx, "add_note", json.RawMessage(`{"title": "milk", "body": "two litres"}`))
	fmt.Println(res.Text(), err)
	// Output:
	// mcpbridge-demo
	// added note #1: milk <nil>
}

// A server reached over a transport the caller builds: here an in-memory
// pair, with the server in this process.
func ExampleFromTransport() {
	ctx := context.Background()
	serverSide, clientSide := mcp.NewInMemoryTransports()
	session, err := demo.New().Connect(ctx, serverSide, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()

	notes := mcpclient.FromTransport("notes", clientSide)
	if err := notes.Connect(ctx); err != nil {
		log.Fatal(err)
	}
	defer notes.Close()
	fmt.Println(notes.Instructions() != "", len(notes.Tools()))
	// Output:
	// true 11
}

// A host that renders MCP Apps finds a tool's interface in its definition
// and reads it, with the policy to frame it under. The demo's notes_board
// is an app; board_refresh, which only its interface calls, is not offered.
func ExampleProvider_ReadApp() {
	ctx := context.Background()
	notes := mcpclient.FromServer("notes", demo.New(), mcpclient.WithApps())
	if err := notes.Connect(ctx); err != nil {
		log.Fatal(err)
	}
	defer notes.Close()
	for _, d := range notes.Tools() {
		if d.App().ResourceURI == "" {
			continue
		}
		app, err := notes.ReadApp(ctx, d.App().ResourceURI)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(d.Name, app.URI, strings.HasPrefix(app.HTML, "<!DOCTYPE html>"))
		fmt.Println(app.CSP.Policy())
	}
	fmt.Println(slices.Contains(notes.ToolNames(), "board_refresh"))
	// Output:
	// notes_board ui://notes/board.html true
	// default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:; media-src data:; connect-src 'none'; frame-src 'none'; base-uri 'self'; object-src 'none'
	// false
}

// A go-sdk server in this process, here the bundled demo, as tools.
func ExampleFromServer() {
	notes := mcpclient.FromServer("notes", demo.New(), mcpclient.WithAllowedTools("add_note", "list_notes"))
	if err := notes.Connect(context.Background()); err != nil {
		log.Fatal(err)
	}
	defer notes.Close()
	fmt.Println(notes.ToolNames())
	// Output:
	// [add_note list_notes]
}

// demoNotes returns a provider connected to a demo notes server of its
// own, in this process, as in ExampleFromServer.
func demoNotes(opts ...mcpclient.Option) *mcpclient.Provider {
	notes := mcpclient.FromServer("notes", demo.New(), opts...)
	if err := notes.Connect(context.Background()); err != nil {
		log.Fatal(err)
	}
	return notes
}

// The handler serves the server's tools to a model: it checks the
// arguments before anything is sent, turns a tool's failure into a
// FailedError the model reads, and declines a name it does not serve, so
// that a composition tries the next handler.
func ExampleProvider_Handler() {
	notes := demoNotes()
	defer notes.Close()
	ctx := context.Background()
	h := notes.Handler()

	res, _ := h.Call(ctx, "mcp__notes__add_note", json.RawMessage(`{"title": "hello", "body": "world"}`))
	fmt.Println(res.Text())
	_, err := h.Call(ctx, "get_note", json.RawMessage(`{"id": "one"}`))
	fmt.Println("refused:", errors.As(err, new(*tool.RefusedError)), err)
	_, err = h.Call(ctx, "get_note", json.RawMessage(`{"id": 9}`))
	fmt.Println("failed:", errors.As(err, new(*tool.FailedError)), err)
	_, err = h.Call(ctx, "weather", nil)
	fmt.Println("unserved:", errors.Is(err, tool.ErrUnserved))
	// Output:
	// added note #1: hello
	// refused: true tool "get_note" refused: argument "id": want integer, got string
	// failed: true tool "get_note" failed: no note with id 9
	// unserved: true
}

// CallTool is the host's own call, with the result as one string; a tool's
// failure is the string {"error": ...}, not an error.
func ExampleProvider_CallTool() {
	notes := demoNotes()
	defer notes.Close()
	ctx := context.Background()

	out, err := notes.CallTool(ctx, "add_note", map[string]any{"title": "hello", "body": "world"})
	fmt.Println(out, err)
	out, err = notes.CallTool(ctx, "get_note", map[string]any{"id": 9})
	fmt.Println(out, err)
	// Output:
	// added note #1: hello <nil>
	// {"error":"no note with id 9"} <nil>
}

// CallToolResult returns the server's result as it is, for a host that
// relays it.
func ExampleProvider_CallToolResult() {
	notes := demoNotes()
	defer notes.Close()

	res, err := notes.CallToolResult(context.Background(), "get_note", map[string]any{"id": 9})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.IsError, mcpclient.ToText(res))
	// Output:
	// true no note with id 9
}

func ExampleProvider_ReadResource() {
	notes := demoNotes()
	defer notes.Close()
	ctx := context.Background()
	notes.CallTool(ctx, "add_note", map[string]any{"title": "milk", "body": "two litres"})

	res, err := notes.ReadResource(ctx, "notes://1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Contents[0].MIMEType)
	fmt.Print(res.Contents[0].Text)
	// Output:
	// text/markdown
	// ## #1 milk
	//
	// two litres
}

// Resources and ResourceTemplates list what a server has to read, to show
// a person; a template's URI is filled in to read one.
func ExampleProvider_Resources() {
	notes := demoNotes()
	defer notes.Close()
	ctx := context.Background()
	resources, err := notes.Resources(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range resources {
		fmt.Println(r.URI, r.MIMEType)
	}
	templates, err := notes.ResourceTemplates(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range templates {
		fmt.Println(r.URITemplate, r.MIMEType)
	}
	// Output:
	// notes://all text/markdown
	// ui://notes/board.html text/html;profile=mcp-app
	// notes://{id} text/markdown
	// skill://weekly-review/{+path} text/markdown
}

// Prompts lists a server's prompts, here of a go-sdk server in the same
// process.
func ExampleProvider_Prompts() {
	s := mcp.NewServer(&mcp.Implementation{Name: "writer", Version: "1"}, nil)
	s.AddPrompt(&mcp.Prompt{Name: "summarize", Description: "Summarize a text in one line."},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{}, nil
		})
	writer := mcpclient.FromServer("writer", s)
	ctx := context.Background()
	if err := writer.Connect(ctx); err != nil {
		log.Fatal(err)
	}
	defer writer.Close()
	prompts, err := writer.Prompts(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range prompts {
		fmt.Println(p.Name+":", p.Description)
	}
	// Output:
	// summarize: Summarize a text in one line.
}

// Request sends a method go-sdk does not model, here the Skills
// extension's skills/list, and returns the result as the server wrote it.
func ExampleProvider_Request() {
	notes := demoNotes()
	defer notes.Close()

	raw, err := notes.Request(context.Background(), "skills/list", nil)
	if err != nil {
		log.Fatal(err)
	}
	var listing struct {
		Skills []struct{ URI string } `json:"skills"`
	}
	json.Unmarshal(raw, &listing)
	fmt.Println(listing.Skills[0].URI)
	// Output:
	// skill://weekly-review/SKILL.md
}

// Offer hands over definitions and the handler that serves exactly them,
// the tool.Source an agent takes one set of per run.
func ExampleProvider_Offer() {
	notes := demoNotes(mcpclient.WithToolFilter(func(name string) bool { return name == "note_stats" }))
	defer notes.Close()
	ctx := context.Background()

	set, err := notes.Offer(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(set.Definitions), set.Definitions[0].Name)
	res, _ := set.Handler.Call(ctx, "note_stats", nil)
	fmt.Println(res.Text())
	// Output:
	// 1 note_stats
	// notes: 0
}

// A provider that reconnects rebuilds a lost connection, here an HTTP
// session a restarted server no longer knows, and resends a read-only call
// the loss caught.
func ExampleWithReconnect() {
	var current atomic.Pointer[http.Handler]
	serve := func(s *mcp.Server) {
		h := http.Handler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
		current.Store(&h)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		(*current.Load()).ServeHTTP(w, r)
	}))
	defer srv.Close()
	first := demo.New()
	serve(first)

	notes := mcpclient.FromURL(srv.URL+"/mcp", mcpclient.WithName("notes"),
		mcpclient.WithReconnect(mcpclient.Reconnect{}),
		mcpclient.WithStateChange(func(s mcpclient.State, _ error) { fmt.Println("state:", s) }))
	ctx := context.Background()
	if err := notes.Connect(ctx); err != nil {
		log.Fatal(err)
	}
	defer notes.Close()

	serve(demo.New()) // the server restarts, and knows no session
	defer func() {
		for s := range first.Sessions() {
			s.Close() // as the old server's exit would
		}
	}()
	out, err := notes.CallTool(ctx, "list_notes", nil)
	fmt.Println(out, err)
	state, _ := notes.State()
	fmt.Println("now:", state)
	// Output:
	// state: connecting
	// state: ready
	// state: reconnecting
	// state: ready
	// no notes yet <nil>
	// now: ready
	// state: closed
}

// ToReply turns an MCP result into what a model reads: text as it is, and
// for what a model cannot read, a one-line note instead of base64.
func ExampleToReply() {
	res := &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "the recording"},
		&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF")},
	}}
	fmt.Println(mcpclient.ToReply(res).Text())
	// Output:
	// ["the recording","[audio content (audio/wav) not shown to the model]"]
}

// A provider's calls traced by the OpenTelemetry SDK: each tool call is a
// client span named by the MCP conventions, in the caller's trace. A host
// would batch the spans to an OTLP exporter; here they are kept in memory.
func ExampleWithTracerProvider() {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer tp.Shutdown(context.Background())

	notes := mcpclient.FromServer("notes", demo.New(), mcpclient.WithTracerProvider(tp))
	ctx, run := tp.Tracer("host").Start(context.Background(), "answer the user")
	if err := notes.Connect(ctx); err != nil {
		log.Fatal(err)
	}
	defer notes.Close()
	if _, err := notes.Handler().Call(ctx, "add_note", json.RawMessage(`{"title": "milk", "body": "buy milk"}`)); err != nil {
		log.Fatal(err)
	}
	run.End()

	for _, s := range spans.GetSpans() {
		if s.SpanKind == trace.SpanKindClient && s.Parent.SpanID() == run.SpanContext().SpanID() {
			fmt.Println(s.Name)
		}
	}
	// Output:
	// tools/call add_note
}

// A long job a host follows: started as a task, its status shown as it
// changes, its result taken later. The question the task asks midway (which
// tag?) is answered by the elicitation hook, here without a person.
func ExampleProvider_StartTask() {
	notes := mcpclient.FromServer("notes", demo.New(),
		mcpclient.WithElicitation(func(context.Context, *tool.Elicitation) (tool.Answer, error) {
			return tool.Answer{Action: "accept", Content: map[string]any{"tag": "work"}}, nil
		}))
	ctx := context.Background()
	if err := notes.Connect(ctx); err != nil {
		log.Fatal(err)
	}
	defer notes.Close()

	ctx = mcpclient.WithTaskStatus(ctx, func(st mcpclient.TaskState) {
		fmt.Println(st.Status, "-", st.Message)
	})
	task, err := notes.StartTask(ctx, "tag_report", nil)
	if err != nil {
		log.Fatal(err)
	}
	res, err := task.Wait(ctx) // or later, or task.Cancel(ctx)
	fmt.Println(mcpclient.ToText(res), err)
	// Output:
	// working - reading the notes
	// input_required - waiting for a tag
	// working - writing the report
	// completed - report written
	// report on "work": no notes carry it <nil>
}

// A URL that answers with something other than MCP: here a load balancer
// whose server is restarting. The error names the status, and says what
// it means: a retry may help, after the wait the server asked for.
func ExampleHTTPError() {
	balancer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "5")
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer balancer.Close()

	p := mcpclient.FromURL(balancer.URL+"/mcp", mcpclient.WithName("search"))
	defer p.Close()
	err := p.Connect(context.Background())
	fmt.Println(err)
	var he *mcpclient.HTTPError
	if errors.As(err, &he) {
		fmt.Println(he.StatusCode, he.RetryAfter, tool.Retryable(err))
	}
	// Output:
	// mcptool: server "search": connect: HTTP 503 Service Unavailable (retry after 5s)
	// 503 5s true
}
