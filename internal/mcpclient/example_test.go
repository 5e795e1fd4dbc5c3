package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/tool"
)

// demoNotes returns a provider connected to a demo notes server of its
// own, in this process, as in ExampleFromServer.
func demoNotes(opts ...mcpclient.Option) *mcpclient.Provider {
	notes := mcpclient.FromServer("notes", demo.New(), opts...)
	if err := notes.Connect(context.Background()); err != nil {
		log.Fatal(err)
	}
	return notes
}

// CallToolResult is the host's own call, with the result as the server sent
// it; a tool's failure is a result marked isError, not an error.
func ExampleProvider_CallToolResult() {
	notes := demoNotes()
	defer notes.Close()
	ctx := context.Background()

	res, err := notes.CallToolResult(ctx, "add_note", map[string]any{"title": "hello", "body": "world"})
	fmt.Println(mcpclient.ToReply(res).Text(), err)
	res, err = notes.CallToolResult(ctx, "get_note", map[string]any{"id": 9})
	fmt.Println(res.IsError, mcpclient.ToReply(res).Text(), err)
	// Output:
	// added note #1: hello <nil>
	// true no note with id 9 <nil>
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

// A long job the server runs as a task: the call follows it to its end,
// its status shown as it changes. The question the task asks midway (which
// tag?) is answered by the elicitation hook, here without a person.
func ExampleWithTaskStatus() {
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
	res, err := notes.CallToolResult(ctx, "tag_report", nil)
	fmt.Println(mcpclient.ToReply(res).Text(), err)
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
	// server "search": connect: HTTP 503 Service Unavailable (retry after 5s)
	// 503 5s true
}
