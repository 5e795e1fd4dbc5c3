package telemetry_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"go.opentelemetry.io/otel/baggage"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpbridge/mcpbridge/internal/telemetry"
	"github.com/mcpbridge/mcpbridge/internal/testing/oteltest"
	"github.com/mcpbridge/mcpbridge/tool"
)

func TestNoOpProvidersSkipEverything(t *testing.T) {
	if tel := telemetry.New("t", tracenoop.NewTracerProvider(), metricnoop.NewMeterProvider()); tel != nil {
		t.Fatal("two no-op providers: want nil, the instrumentation skipped")
	}
	rec := oteltest.New(t)
	if telemetry.New("t", rec.Traces, metricnoop.NewMeterProvider()) == nil || telemetry.New("t", nil, nil) == nil {
		t.Fatal("a real or a global provider: want telemetry")
	}
	var none *telemetry.Telemetry
	ctx, span := none.Start(context.Background(), "x", trace.SpanKindInternal)
	none.Refused(ctx, "t", telemetry.RefusedPolicy, errors.New("no"))
	if span.IsRecording() || trace.SpanFromContext(ctx).SpanContext().IsValid() {
		t.Fatal("a nil Telemetry recorded")
	}
}

type timeoutError struct{}

func (timeoutError) Error() string { return "slow" }
func (timeoutError) Timeout() bool { return true }

type ownError struct{}

func (*ownError) Error() string { return "own" }

func TestErrorType(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("call: %w", &jsonrpc.Error{Code: -32602, Message: "bad"}), "-32602"},
		{&tool.UnservedError{Name: "x"}, telemetry.ErrUnserved},
		{&tool.RefusedError{Name: "x", Message: "no"}, telemetry.ErrRefused},
		{&tool.FailedError{Name: "x", Message: "broke"}, telemetry.ErrToolError},
		{fmt.Errorf("wrapped: %w", timeoutError{}), telemetry.ErrTimeout},
		{context.DeadlineExceeded, telemetry.ErrTimeout},
		{fmt.Errorf("x: %w", context.Canceled), telemetry.ErrCanceled},
		{fmt.Errorf("x: %w", &ownError{}), "*telemetry_test.ownError"},
	} {
		if got := telemetry.ErrorType(c.err); got != c.want {
			t.Errorf("ErrorType(%v) = %q, want %q", c.err, got, c.want)
		}
	}
	if got := telemetry.StatusCode(&jsonrpc.Error{Code: -32601}); got != "-32601" {
		t.Errorf("StatusCode = %q", got)
	}
	if got := telemetry.StatusCode(errors.New("x")); got != "" {
		t.Errorf("StatusCode of no JSON-RPC error = %q", got)
	}
}

func TestContentCutAndScrubbed(t *testing.T) {
	in := `{"key":"sk-abcdefghijkl1234","url":"https://u:p@example.com/path?token=x","text":"a` + "\x1b[2J" + `b"}`
	got := telemetry.Content(in)
	for _, leak := range []string{"sk-abcdefghijkl1234", "u:p", "token=x", "\x1b"} {
		if strings.Contains(got, leak) {
			t.Errorf("Content kept %q: %s", leak, got)
		}
	}
	long := telemetry.Content(strings.Repeat("é", telemetry.MaxContent+10))
	if n := utf8.RuneCountInString(long); n != telemetry.MaxContent+len([]rune(" […]")) || !strings.HasSuffix(long, "[…]") {
		t.Errorf("a long text: %d characters, ending %q", n, long[len(long)-8:])
	}
}

func TestInjectExtract(t *testing.T) {
	meta := map[string]any{"progressToken": "p1"}
	if got := telemetry.Inject(context.Background(), meta); len(got) != 1 {
		t.Fatalf("no trace: %v; want meta as it was", got)
	}
	ctx := trace.ContextWithSpanContext(context.Background(), oteltest.SpanContext())
	member, _ := baggage.NewMember("user", "alice")
	bag, _ := baggage.New(member)
	ctx = baggage.ContextWithBaggage(ctx, bag)
	got := telemetry.Inject(ctx, meta)
	if got["traceparent"] != "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" || got["baggage"] != "user=alice" || got["progressToken"] != "p1" {
		t.Fatalf("injected %v", got)
	}
	if len(meta) != 1 {
		t.Fatalf("the caller's map changed: %v", meta)
	}
	back := telemetry.Extract(context.Background(), got)
	if sc := trace.SpanContextFromContext(back); sc.TraceID() != oteltest.SpanContext().TraceID() || !sc.IsRemote() {
		t.Fatalf("extracted %v", sc)
	}
	if v := baggage.FromContext(back).Member("user").Value(); v != "alice" {
		t.Fatalf("baggage %q", v)
	}
}

func TestLogHandler(t *testing.T) {
	var buf bytes.Buffer
	h := telemetry.LogHandler(slog.NewTextHandler(&buf, nil))
	if telemetry.LogHandler(h) != h {
		t.Fatal("wrapped twice")
	}
	log := slog.New(h).With("server", "notes")
	log.InfoContext(context.Background(), "no span")
	log.InfoContext(trace.ContextWithSpanContext(context.Background(), oteltest.SpanContext()), "in a span")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || strings.Contains(lines[0], "trace_id") {
		t.Fatalf("lines %q", lines)
	}
	if !strings.Contains(lines[1], "trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7") || !strings.Contains(lines[1], "server=notes") {
		t.Fatalf("the line in a span: %s", lines[1])
	}
}

func TestRefusedAndTaskWait(t *testing.T) {
	rec := oteltest.New(t)
	tel := telemetry.New("t", rec.Traces, rec.Metrics)
	ctx := context.Background()
	tel.Refused(ctx, "delete_file", telemetry.RefusedPolicy, &tool.RefusedError{Name: "delete_file", Message: "denied"})
	span := rec.Span(t, "check_policy delete_file")
	oteltest.Has(t, span, map[string]string{"error.type": "refused", "gen_ai.tool.name": "delete_file", "mcpbridge.refusal.reason": "policy"})
	if p := rec.Point(t, telemetry.MetricRefusals, map[string]string{"mcpbridge.refusal.reason": "policy"}); p.Value != 1 {
		t.Errorf("refusals %v", p)
	}

	wctx, wait := tel.StartTaskWait(ctx, "render", "task-1")
	_, poll := tel.Start(wctx, "tasks/get", trace.SpanKindClient)
	poll.End()
	wait.Polled("working")
	wait.Polled("completed")
	wait.End(nil)
	span = rec.Span(t, "await_task render")
	oteltest.Has(t, span, map[string]string{"mcpbridge.task.id": "task-1", "mcpbridge.task.polls": "2", "mcpbridge.task.status": "completed"})
	oteltest.ChildOf(t, rec.Span(t, "tasks/get"), span)
}

// A span's trace context rides in a request's params._meta as the
// 2026-07-28 revision of MCP specifies.
func ExampleInject() {
	ctx := trace.ContextWithSpanContext(context.Background(), oteltest.SpanContext())
	meta := telemetry.Inject(ctx, map[string]any{"progressToken": "p1"})
	fmt.Println(meta["traceparent"])
	// Output:
	// 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01
}
