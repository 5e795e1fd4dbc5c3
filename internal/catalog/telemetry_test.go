package catalog_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/testing/oteltest"
)

// The set's providers trace into the set's providers, and a call the set
// refuses is a validate_arguments span and a refusal counted, under the
// name the model called.
func TestTelemetry(t *testing.T) {
	rec := oteltest.New(t)
	url := serveMCP(t, demo.New())
	ts := start(t, &config.Config{Servers: []config.Server{{Name: "notes", URL: url + "/mcp"}}},
		catalog.WithTracerProvider(rec.Traces), catalog.WithMeterProvider(rec.Metrics))
	rec.Span(t, "connect notes")
	snap := ts.Snapshot(context.Background())
	if _, err := snap.Call(context.Background(), "notes_list_notes", nil); err != nil {
		t.Fatal(err)
	}
	oteltest.Has(t, rec.Span(t, "tools/call list_notes"), map[string]string{"mcpbridge.server.name": "notes", "network.transport": "tcp"})
	if _, err := snap.Call(context.Background(), "notes_add_note", json.RawMessage(`{"title": 5}`)); err == nil {
		t.Fatal("bad arguments went through")
	}
	oteltest.Has(t, rec.Span(t, "validate_arguments notes_add_note"), map[string]string{"error.type": "refused", "mcpbridge.refusal.reason": "arguments"})
	if got := rec.Point(t, "mcpbridge.tool.refusals", map[string]string{"gen_ai.tool.name": "notes_add_note"}); got.Value != 1 {
		t.Errorf("refusals %v", got)
	}
}
