package names_test

import (
	"slices"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/names"
	"github.com/mcpbridge/mcpbridge/tool"
)

// Proves the one alias rule: every split of an alias is a reading, and an
// alias names a tool only when exactly one reading is known.
func TestAlias(t *testing.T) {
	if got := (tool.Origin{Server: "kb", Tool: "search"}).Alias(); got != "mcp__kb__search" {
		t.Fatalf("Alias() = %q", got)
	}
	if got := (tool.Origin{Tool: "local"}).Alias(); got != "" {
		t.Fatalf("a local tool's alias: %q", got)
	}
	readings := names.Readings("mcp__a__b__c")
	want := []tool.Origin{{Server: "a", Tool: "b__c"}, {Server: "a__b", Tool: "c"}}
	if !slices.Equal(readings, want) {
		t.Fatalf("readings %v, want %v", readings, want)
	}
	o := tool.Origin{Server: "kb", Tool: "search"}
	if r := names.Readings(o.Alias()); !slices.Equal(r, []tool.Origin{o}) {
		t.Fatalf("the readings of %s: %v; want %v alone", o.Alias(), r, o)
	}
	if names.Readings("search") != nil || names.Readings("mcp____x") != nil {
		t.Fatal("a name that is no alias has readings")
	}
	known := map[tool.Origin]bool{{Server: "kb", Tool: "search"}: true}
	has := func(o tool.Origin) bool { return known[o] }
	if o, ok, amb := names.Resolve("mcp__kb__search", has); !ok || amb || o.Tool != "search" {
		t.Fatalf("known alias: %v %v %v", o, ok, amb)
	}
	if _, ok, amb := names.Resolve("mcp__kb__nothing", has); ok || amb {
		t.Fatal("an alias of no tool resolved")
	}
	known[tool.Origin{Server: "a", Tool: "b__c"}] = true
	known[tool.Origin{Server: "a__b", Tool: "c"}] = true
	if _, ok, amb := names.Resolve("mcp__a__b__c", has); ok || !amb {
		t.Fatal("an alias two tools could be read to name was resolved")
	}
}
