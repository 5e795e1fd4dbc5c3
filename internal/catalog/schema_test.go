package catalog_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
	"github.com/mcpbridge/mcpbridge/schema"
)

// Proves that, for every vendor, each tool whose input or output schema no
// validation could finish on is quarantined with a diagnostic naming the
// server, the tool and the pointer of the cycle, and that the server's good
// tool is offered and called.
func TestUnboundedSchemasQuarantined(t *testing.T) {
	h, err := hostile.New("schema-cycles")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{ // tool → the pointer of its diagnostic
		"self_ref":    "/$ref",
		"defs_cycle":  "/$defs/b/$ref",
		"all_of":      "/allOf/0/$ref",
		"any_of":      "/anyOf/1/$ref",
		"dynamic_ref": "/allOf/0/$dynamicRef",
		"doubling":    "/$defs/",
		"out_cycle":   "/outputSchema/$ref",
	}
	for _, v := range []schema.Vendor{schema.OpenAI, schema.Anthropic, schema.Gemini, "" /* the default */} {
		t.Run(string(v), func(t *testing.T) {
			cfg := &config.Config{Servers: []config.Server{{Name: "bad", URL: serve(t, h.Handler())}}}
			ts := start(t, cfg, catalog.WithVendor(v))
			snap := ts.Snapshot(context.Background())
			if got := names(snap.Definitions()); !slices.Equal(got, []string{"bad_echo"}) {
				t.Errorf("catalog %v, want only bad_echo", got)
			}
			diags := ts.Quarantined()
			for _, d := range diags {
				ptr, ok := want[d.Tool]
				if !ok || d.Server != "bad" || !strings.HasPrefix(d.Pointer, ptr) || !strings.Contains(d.String(), "subschemas") && !strings.Contains(d.String(), "cycle") {
					t.Errorf("diagnostic %q", d)
				}
			}
			if len(diags) != len(want) {
				t.Errorf("%d diagnostics, want %d: %v", len(diags), len(want), diags)
			}
			if got := call(t, snap.Handler(), "bad_echo", json.RawMessage(`{"text":"still here"}`)); got != "still here" {
				t.Errorf("echo: %q", got)
			}
		})
	}
}
