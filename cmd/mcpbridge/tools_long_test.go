package main_test

import (
	"strings"
	"testing"
)

// tools shows the first line of a description, marked "…" when more was
// cut; --long shows it whole, each line indented under the tool.
func TestToolsDescriptions(t *testing.T) {
	expect(t, mcpbridge(t, "", "", nil, withServer(t, "escapes", "tools")...), 0, "paint\n  Paints. …\n  parameters:")
	expect(t, mcpbridge(t, "", "", nil, withServer(t, "escapes", "tools", "--long")...), 0, "paint\n  Paints.\n  Second line\n  parameters:")
	// A description of one line is not marked.
	r := mcpbridge(t, t.TempDir(), "", nil, "tools")
	expect(t, r, 0, "get_note\n  Return the full text of one note. Fails if no note has that id.\n")
	if strings.Contains(r.out, "…") {
		t.Errorf("a whole description is marked as cut:\n%s", r.out)
	}
}
