package mcpclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
	"github.com/mcpbridge/mcpbridge/internal/testing/npmtest"
	"github.com/mcpbridge/mcpbridge/internal/testing/oteltest"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/tool"
)

// traced returns the options that send a provider's telemetry to rec.
func traced(rec *oteltest.Recorder) []mcpclient.Option {
	return []mcpclient.Option{mcpclient.WithTracerProvider(rec.Traces), mcpclient.WithMeterProvider(rec.Metrics)}
}

// parent starts a span for the test's own operation, as a host would.
func parent(rec *oteltest.Recorder) (context.Context, trace.Span) {
	return rec.Traces.Tracer("test").Start(context.Background(), "host")
}

// Every MCP request is a client span by the conventions, in the caller's
// trace, with the request's id and the session's facts; connecting is a
// span holding the start, the handshake and the listing.
func TestTracesEveryRequest(t *testing.T) {
	rec := oteltest.New(t)
	p, _ := inProcess(t, demo.New(), traced(rec)...)
	connect := rec.Span(t, "connect notes")
	oteltest.Has(t, connect, map[string]string{"mcpbridge.server.name": "notes", "network.transport": "pipe", "mcp.protocol.version": p.ProtocolVersion()})
	// The 2026-07-28 handshake is server/discover.
	for _, name := range []string{"start notes", "server/discover", "tools/list"} {
		oteltest.ChildOf(t, rec.Span(t, name), connect)
	}
	oteltest.Has(t, rec.Span(t, "tools/list"), map[string]string{"mcp.method.name": "tools/list", "mcp.protocol.version": p.ProtocolVersion()})

	ctx, host := parent(rec)
	h := p.Handler()
	if _, err := h.Call(ctx, "search_notes", json.RawMessage(`{"query": "milk"}`)); err != nil {
		t.Fatal(err)
	}
	_, err := h.Call(ctx, "get_note", json.RawMessage(`{"id": 999}`))
	if err == nil {
		t.Fatal("get_note 999 succeeded")
	}
	if _, err := p.ReadResource(ctx, "notes://all"); err != nil {
		t.Fatal(err)
	}
	host.End()

	call := rec.Span(t, "tools/call search_notes")
	if call.SpanKind != trace.SpanKindClient || call.Status.Code.String() != "Unset" {
		t.Errorf("tools/call: kind %v, status %v", call.SpanKind, call.Status)
	}
	oteltest.ChildOf(t, call, rec.Span(t, "host"))
	oteltest.Has(t, call, map[string]string{
		"mcp.method.name": "tools/call", "gen_ai.tool.name": "search_notes", "gen_ai.operation.name": "execute_tool",
		"mcp.protocol.version": p.ProtocolVersion(), "network.transport": "pipe", "mcpbridge.server.name": "notes",
	})
	attrs := oteltest.Attrs(call)
	if attrs["jsonrpc.request.id"] == "" || attrs["error.type"] != "" || attrs["gen_ai.tool.call.arguments"] != "" {
		t.Errorf("tools/call: %v; want a request id, no error.type, no arguments", attrs)
	}
	failed := rec.Span(t, "tools/call get_note")
	oteltest.Has(t, failed, map[string]string{"error.type": "tool_error"})
	if failed.Status.Code.String() != "Error" {
		t.Errorf("a tool error: status %v", failed.Status)
	}
	oteltest.Has(t, rec.Span(t, "resources/read"), map[string]string{"mcp.resource.uri": "notes://all", "mcp.method.name": "resources/read"})

	rec.Point(t, "mcp.client.operation.duration", map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "search_notes", "network.transport": "pipe"})
	if p := rec.Point(t, "mcp.client.operation.duration", map[string]string{"gen_ai.tool.name": "get_note"}); p.Attrs["error.type"] != "tool_error" {
		t.Errorf("get_note's duration: %v", p)
	}
	if got := rec.Points(t, "mcp.client.session.duration"); len(got) != 0 {
		t.Errorf("a session timed before it ended: %v", got)
	}
	version := p.ProtocolVersion()
	p.Close()
	if got := rec.Point(t, "mcp.client.session.duration", map[string]string{"mcp.protocol.version": version, "network.transport": "pipe"}); got.Value != 1 || got.Attrs["error.type"] != "" {
		t.Errorf("session duration %v", got)
	}
}

// A server's JSON-RPC error is the span's error.type and status code, and
// its message the span's status.
func TestTracesJSONRPCError(t *testing.T) {
	rec := oteltest.New(t)
	p, _ := inProcess(t, demo.New(), traced(rec)...)
	_, err := p.CallToolResult(context.Background(), "no_such_tool", nil)
	var pe *mcpclient.ProtocolError
	if !errors.As(err, &pe) || pe.Code == 0 {
		t.Fatalf("got %v; want a JSON-RPC error", err)
	}
	span := rec.Span(t, "tools/call no_such_tool")
	code := oteltest.Attrs(span)["error.type"]
	if !strings.HasPrefix(code, "-32") || oteltest.Attrs(span)["rpc.response.status_code"] != code || !strings.Contains(span.Status.Description, "no_such_tool") {
		t.Errorf("span %v, status %v", oteltest.Attrs(span), span.Status)
	}
}

// A call refused before it is sent is a validate_arguments span and a
// refusal counted; no tools/call goes out.
func TestTracesRefusal(t *testing.T) {
	rec := oteltest.New(t)
	p, _ := inProcess(t, demo.New(), traced(rec)...)
	if _, err := p.Handler().Call(context.Background(), "add_note", json.RawMessage(`{"title": 5}`)); err == nil {
		t.Fatal("bad arguments went through")
	}
	oteltest.Has(t, rec.Span(t, "validate_arguments add_note"), map[string]string{"error.type": "refused", "mcpbridge.refusal.reason": "arguments"})
	if calls := rec.Named("tools/call add_note"); len(calls) != 0 {
		t.Errorf("a refused call was sent")
	}
	if got := rec.Point(t, "mcpbridge.tool.refusals", map[string]string{"gen_ai.tool.name": "add_note"}); got.Value != 1 {
		t.Errorf("refusals %v", got)
	}
}

// A timeout is error.type "timeout", on the held tools/call of the handler
// and on a request sent raw alike.
func TestTracesTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := oteltest.New(t)
		p, _ := inProcess(t, demo.New(), append(traced(rec), mcpclient.WithRequestTimeout(50*time.Millisecond))...)
		args := json.RawMessage(`{"to": 2, "delay_ms": 51}`)
		if _, err := p.Handler().Call(context.Background(), "slow_count", args); err == nil {
			t.Fatal("no timeout")
		}
		if _, err := p.Request(context.Background(), "tools/call", map[string]any{"name": "slow_count", "arguments": args}); err == nil {
			t.Fatal("no timeout, raw")
		}
		spans := rec.Named("tools/call slow_count")
		if len(spans) != 2 {
			t.Fatalf("spans %v", oteltest.Names(rec.Spans()))
		}
		for _, s := range spans {
			oteltest.Has(t, s, map[string]string{"error.type": "timeout"})
		}
	})
}

// Over streamable HTTP the span says where the server is and which session
// it is; the trace context reaches the server in params._meta, and the
// server's span joins the caller's trace as the client span's child.
func TestTraceContextReachesTheServer(t *testing.T) {
	rec := oteltest.New(t)
	serverRec := oteltest.New(t)
	server := demo.New(demo.WithTracerProvider(serverRec.Traces))
	srv := serveHTTP(t, server, nil)
	u, _ := url.Parse(srv.URL)
	p := connectURL(t, srv.URL+"/mcp", traced(rec)...)
	ctx, host := parent(rec)
	call(t, p.Handler(), "add_note", `{"title": "traced", "body": "b"}`)
	if _, err := p.Handler().Call(ctx, "search_notes", json.RawMessage(`{"query": "traced"}`)); err != nil {
		t.Fatal(err)
	}
	host.End()

	client := rec.Span(t, "tools/call search_notes")
	oteltest.Has(t, client, map[string]string{
		"network.transport": "tcp", "network.protocol.name": "http", "server.address": u.Hostname(), "server.port": u.Port(),
		"mcpbridge.server.name": u.Host,
	})
	if attrs := oteltest.Attrs(client); attrs["mcp.session.id"] == "" || attrs["jsonrpc.request.id"] == "" {
		t.Errorf("client span %v; want the session and the request id", attrs)
	}
	served := serverRec.Span(t, "tools/call search_notes")
	if served.SpanKind != trace.SpanKindServer {
		t.Errorf("server span kind %v", served.SpanKind)
	}
	oteltest.ChildOf(t, served, client)
	if served.SpanContext.TraceID() != rec.Span(t, "host").SpanContext.TraceID() {
		t.Error("the server's span is not in the host's trace")
	}
}

// With no-op providers given for both traces and metrics, nothing is
// traced and nothing reaches the server: its span starts a trace of its own.
func TestNoOpProvidersSendNoTraceContext(t *testing.T) {
	serverRec := oteltest.New(t)
	server := demo.New(demo.WithTracerProvider(serverRec.Traces))
	p, _ := inProcess(t, server, mcpclient.WithTracerProvider(tracenoop.NewTracerProvider()), mcpclient.WithMeterProvider(metricnoop.NewMeterProvider()))
	rec := oteltest.New(t)
	ctx, host := parent(rec)
	if _, err := p.Handler().Call(ctx, "list_notes", nil); err != nil {
		t.Fatal(err)
	}
	host.End()
	if served := serverRec.Span(t, "tools/call list_notes"); served.Parent.IsValid() {
		t.Error("the server got a trace context")
	}
}

// Arguments and results are recorded only when the host opts in, cut and
// scrubbed.
func TestCallContent(t *testing.T) {
	rec := oteltest.New(t)
	p, _ := inProcess(t, demo.New(), append(traced(rec), mcpclient.WithCallContent())...)
	call(t, p.Handler(), "add_note", `{"title": "key", "body": "sk-abcdefghijklmnop1234 `+strings.Repeat("x", 5000)+`"}`)
	attrs := oteltest.Attrs(rec.Span(t, "tools/call add_note"))
	args, result := attrs["gen_ai.tool.call.arguments"], attrs["gen_ai.tool.call.result"]
	if !strings.Contains(args, `"title": "key"`) || strings.Contains(args, "sk-abcdefghijklmnop1234") || !strings.HasSuffix(args, "[…]") {
		t.Errorf("arguments %.120q…", args)
	}
	if !strings.Contains(result, `"content"`) {
		t.Errorf("result %q", result)
	}
}

// Losing a stdio server mid-call: the session is timed as lost, the
// connection rebuilt under a reconnect span, and a read-only call sent
// again under a resend span, each counted; the log line says which trace.
func TestTracesReconnectAndResend(t *testing.T) {
	rec := oteltest.New(t)
	var logs bytes.Buffer
	marker := filepath.Join(t.TempDir(), "died-once")
	p := raw(t, "", append(traced(rec), fastReconnect,
		mcpclient.WithEnv(map[string]string{hostile.MarkerEnv: marker}),
		mcpclient.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))...)
	connect(t, p)
	got, err := callText(context.Background(), p, "flaky", nil)
	if err != nil || got != "answered on the second try" {
		t.Fatalf("got %q, %v", got, err)
	}
	resend := rec.Span(t, "resend flaky")
	calls := rec.Named("tools/call flaky")
	if len(calls) != 2 {
		t.Fatalf("spans %v", oteltest.Names(rec.Spans()))
	}
	if oteltest.Attrs(calls[0])["error.type"] != "connection_lost" {
		t.Errorf("the lost call: %v", oteltest.Attrs(calls[0]))
	}
	oteltest.ChildOf(t, calls[1], resend)
	reconnect := rec.Span(t, "reconnect raw")
	if connects := rec.Named("connect raw"); len(connects) != 2 {
		t.Errorf("connects %v", oteltest.Names(rec.Spans()))
	} else {
		oteltest.ChildOf(t, connects[1], reconnect)
	}
	if got := rec.Point(t, "mcpbridge.client.resends", map[string]string{"gen_ai.tool.name": "flaky"}); got.Value != 1 {
		t.Errorf("resends %v", got)
	}
	if got := rec.Point(t, "mcpbridge.client.reconnects", map[string]string{"mcpbridge.server.name": "raw"}); got.Value != 1 || got.Attrs["error.type"] != "" {
		t.Errorf("reconnects %v", got)
	}
	if got := rec.Points(t, "mcp.client.session.duration"); len(got) != 1 || got[0].Attrs["error.type"] != "connection_lost" {
		t.Errorf("session durations %v; want the lost one", got)
	}
	for text, span := range map[string]trace.SpanContext{"sending it again": resend.SpanContext, "connected to MCP server": rec.Named("connect raw")[0].SpanContext} {
		line := lineWith(logs.String(), text)
		if !strings.Contains(line, "trace_id="+span.TraceID().String()) || !strings.Contains(line, "span_id="+span.SpanID().String()) {
			t.Errorf("log line %q; want its span's trace and span ids", line)
		}
	}
}

func lineWith(text, s string) string {
	for line := range strings.Lines(text) {
		if strings.Contains(line, s) {
			return line
		}
	}
	return ""
}

// Over stdio, the request id is the JSON-RPC id the demo server was sent.
func TestTracesStdio(t *testing.T) {
	rec := oteltest.New(t)
	p := mcpclient.FromCommand(self(t), nil, append(traced(rec), mcpclient.WithEnv(demoEnv()), mcpclient.WithName("demo"))...)
	connect(t, p)
	defer p.Close()
	call(t, p.Handler(), "list_notes", ``)
	rec.Span(t, "start demo")
	span := rec.Span(t, "tools/call list_notes")
	oteltest.Has(t, span, map[string]string{"network.transport": "pipe", "mcp.protocol.version": "2026-07-28"})
	// A call goes past go-sdk, under an ID of its own (rawcall.go).
	if id := oteltest.Attrs(span)["jsonrpc.request.id"]; id != "mcpbridge-call-1" {
		t.Errorf("request id %q; want the call's, mcpbridge-call-1", id)
	}
}

// A real third-party server: a tool call and a prompt, named by their
// target.
func TestTracesServerEverything(t *testing.T) {
	bin := npmtest.Bin(t, "mcp-server-everything")
	rec := oteltest.New(t)
	p := mcpclient.FromCommand(bin, []string{"stdio"}, append(traced(rec), mcpclient.WithName("everything"))...)
	connect(t, p)
	defer p.Close()
	call(t, p.Handler(), "echo", `{"message": "traced"}`)
	if _, err := p.Request(context.Background(), "prompts/get", map[string]any{"name": "simple-prompt"}); err != nil {
		t.Fatal(err)
	}
	oteltest.Has(t, rec.Span(t, "tools/call echo"), map[string]string{"gen_ai.tool.name": "echo", "gen_ai.operation.name": "execute_tool", "network.transport": "pipe"})
	oteltest.Has(t, rec.Span(t, "prompts/get simple-prompt"), map[string]string{"gen_ai.prompt.name": "simple-prompt", "mcp.method.name": "prompts/get"})
	if id := oteltest.Attrs(rec.Span(t, "tools/call echo"))["jsonrpc.request.id"]; id == "" {
		t.Error("no request id")
	}
}

// Following a task is the span "await_task {tool}", its polls client spans
// within it.
func TestTracesATask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := oteltest.New(t)
		p, _ := inProcess(t, demo.New(), traced(rec)...)
		ctx, host := parent(rec)
		if _, err := p.Handler().Call(ctx, "tag_report", json.RawMessage(`{"tag": "work"}`)); err != nil {
			t.Fatal(err)
		}
		host.End()
		wait := rec.Span(t, "await_task tag_report")
		oteltest.ChildOf(t, wait, rec.Span(t, "host"))
		oteltest.Has(t, wait, map[string]string{"gen_ai.tool.name": "tag_report", "mcpbridge.task.status": "completed"})
		oteltest.ChildOf(t, rec.Span(t, "tasks/get"), wait)
	})
}

// The host answering a server is a span inside the call it came during:
// "elicit {server}" for asking the user, "sample {server}" for its model,
// failed with the refusal when the host refused.
func TestTracesTheHostsAnswers(t *testing.T) {
	rec := oteltest.New(t)
	model := &scriptedModel{answer: llm.Message{Parts: []tool.Part{tool.TextPart{Text: "ok"}}}}
	params := &mcp.CreateMessageWithToolsParams{MaxTokens: 10, Messages: question("hi")}
	p, _ := inProcess(t, samplingServer(2, params), append(traced(rec), mcpclient.WithSampling(mcpclient.Sampling{Model: model, MaxRequests: 1}))...)
	if _, err := callText(context.Background(), p, "ask", nil); err == nil {
		t.Fatal("two sampling requests passed a bound of one")
	}
	spans := rec.Named("sample notes")
	if len(spans) != 2 {
		t.Fatalf("%d sample spans; want 2", len(spans))
	}
	failed := 0
	for _, s := range spans {
		oteltest.ChildOf(t, s, rec.Span(t, "tools/call ask"))
		if oteltest.Attrs(s)["error.type"] != "" {
			failed++
		}
	}
	if failed != 1 {
		t.Errorf("%d sample spans failed; want the one past the bound", failed)
	}

	var asked tool.Elicitation
	p, _ = inProcess(t, asking(), append(traced(rec), mcpclient.WithElicitation(answering(tool.Answer{Action: "decline"}, &asked)))...)
	if _, err := callText(context.Background(), p, "greet", nil); err != nil {
		t.Fatal(err)
	}
	oteltest.ChildOf(t, rec.Span(t, "elicit notes"), rec.Span(t, "tools/call greet"))
}
