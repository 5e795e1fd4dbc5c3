package main_test

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// collector is an OTLP/HTTP receiver on loopback that keeps what it is
// sent, decoded with the official OTLP protobuf types.
type collector struct {
	URL string

	mu       sync.Mutex
	services []string
	spans    []*tracepb.Span
	metrics  []string
}

func newCollector(t *testing.T) *collector {
	c := &collector{}
	srv := httptest.NewServer(http.HandlerFunc(c.receive))
	t.Cleanup(srv.Close)
	c.URL = srv.URL
	return c
}

func (c *collector) receive(w http.ResponseWriter, r *http.Request) {
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	data, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req, answer proto.Message
	switch r.URL.Path {
	case "/v1/traces":
		req, answer = &coltracepb.ExportTraceServiceRequest{}, &coltracepb.ExportTraceServiceResponse{}
	case "/v1/metrics":
		req, answer = &colmetricpb.ExportMetricsServiceRequest{}, &colmetricpb.ExportMetricsServiceResponse{}
	default:
		http.NotFound(w, r)
		return
	}
	if err := proto.Unmarshal(data, req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch req := req.(type) {
	case *coltracepb.ExportTraceServiceRequest:
		for _, rs := range req.ResourceSpans {
			c.services = append(c.services, attr(rs.Resource.Attributes, "service.name"))
			for _, ss := range rs.ScopeSpans {
				c.spans = append(c.spans, ss.Spans...)
			}
		}
	case *colmetricpb.ExportMetricsServiceRequest:
		for _, rm := range req.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					c.metrics = append(c.metrics, m.Name)
				}
			}
		}
	}
	out, _ := proto.Marshal(answer)
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// span returns the received span called name.
func (c *collector) span(t *testing.T, name string) *tracepb.Span {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	var names []string
	for _, s := range c.spans {
		if s.Name == name {
			return s
		}
		names = append(names, s.Name)
	}
	t.Fatalf("no span %q received; got %q", name, names)
	return nil
}

func attr(kvs []*commonpb.KeyValue, key string) string {
	for _, kv := range kvs {
		if kv.Key == key {
			if s, ok := kv.Value.Value.(*commonpb.AnyValue_StringValue); ok {
				return s.StringValue
			}
			return fmt.Sprint(kv.Value.GetIntValue())
		}
	}
	return ""
}

// With OTEL_EXPORTER_OTLP_ENDPOINT set, mcpbridge call exports its spans
// and metrics there: one trace, under the command's span, with the
// connection to the demo server and the tool call by the MCP conventions.
func TestCallExportsOTLP(t *testing.T) {
	c := newCollector(t)
	r := mcpbridge(t, t.TempDir(), "", []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + c.URL, "OTEL_SERVICE_NAME=mcpbridge-test"},
		"call", "add_note", `{"title": "otlp", "body": "exported"}`)
	expect(t, r, 0)
	if strings.Contains(r.err, "telemetry") {
		t.Errorf("stderr: %s", r.err)
	}
	root := c.span(t, "mcpbridge call")
	call := c.span(t, "tools/call add_note")
	connect := c.span(t, "connect demo")
	for _, s := range []*tracepb.Span{call, connect} {
		if !bytes.Equal(s.TraceId, root.TraceId) {
			t.Errorf("span %q is in trace %s, not the command's %s", s.Name, hex.EncodeToString(s.TraceId), hex.EncodeToString(root.TraceId))
		}
	}
	if call.Kind != tracepb.Span_SPAN_KIND_CLIENT {
		t.Errorf("tools/call kind %v", call.Kind)
	}
	for key, want := range map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "add_note", "gen_ai.operation.name": "execute_tool",
		"network.transport": "pipe", "mcp.protocol.version": "2026-07-28", "mcpbridge.server.name": "demo"} {
		if got := attr(call.Attributes, key); got != want {
			t.Errorf("tools/call %s = %q, want %q", key, got, want)
		}
	}
	if attr(call.Attributes, "jsonrpc.request.id") == "" {
		t.Error("tools/call has no jsonrpc.request.id")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.services) == 0 || c.services[0] != "mcpbridge-test" {
		t.Errorf("service names %q", c.services)
	}
	want := map[string]bool{"mcp.client.operation.duration": false, "mcp.client.session.duration": false}
	for _, m := range c.metrics {
		if _, ok := want[m]; ok {
			want[m] = true
		}
	}
	for m, got := range want {
		if !got {
			t.Errorf("metric %s not received; got %q", m, c.metrics)
		}
	}
}

// OTEL_TRACES_EXPORTER=none keeps the traces home, and an unsupported
// protocol is said and exports nothing; the command runs all the same.
func TestExportSwitchedOff(t *testing.T) {
	c := newCollector(t)
	r := mcpbridge(t, t.TempDir(), "", []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + c.URL, "OTEL_TRACES_EXPORTER=none"}, "call", "list_notes")
	expect(t, r, 0)
	r = mcpbridge(t, t.TempDir(), "", []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + c.URL, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc"}, "call", "list_notes")
	expect(t, r, 0, "only http/protobuf is supported")
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.spans) != 0 {
		t.Errorf("%d spans exported", len(c.spans))
	}
	if len(c.metrics) == 0 {
		t.Error("OTEL_TRACES_EXPORTER=none stopped the metrics too")
	}
}

// mcpbridge chat exports the run as GenAI spans, in the command's trace:
// invoke_agent, a chat span per turn named by the model, an execute_tool
// span per call with the MCP client span in it.
func TestChatExportsOTLP(t *testing.T) {
	c := newCollector(t)
	add := `{"id":"c1","type":"function","function":{"name":"add_note","arguments":"{\"title\":\"milk\",\"body\":\"buy milk\"}"}}`
	url, _ := fakeOpenAI(t, add)
	env := []string{"OPENAI_BASE_URL=" + url, "OPENAI_API_KEY=test", "ANTHROPIC_API_KEY=", "OTEL_EXPORTER_OTLP_ENDPOINT=" + c.URL}
	expect(t, mcpbridge(t, t.TempDir(), "", env, "chat", "-p", "remember milk", "--model", "m"), 0)
	root := c.span(t, "mcpbridge chat")
	run := c.span(t, "invoke_agent")
	turn := c.span(t, "chat m")
	tool := c.span(t, "execute_tool add_note")
	call := c.span(t, "tools/call add_note")
	for child, parent := range map[*tracepb.Span]*tracepb.Span{run: root, turn: run, tool: run, call: tool} {
		if !bytes.Equal(child.ParentSpanId, parent.SpanId) {
			t.Errorf("%q is not a child of %q", child.Name, parent.Name)
		}
	}
	if got := attr(turn.Attributes, "gen_ai.provider.name"); got != "openai" {
		t.Errorf("gen_ai.provider.name %q", got)
	}
}
