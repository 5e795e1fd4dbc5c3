package main_test

import (
	"strings"
	"testing"
)

// info says the protocol version agreed with each server, and explains one
// older than mcpbridge's newest: the demo speaks 2026-07-28 over stdio, but
// its HTTP endpoint keeps sessions, and go-sdk serves 2026-07-28 over HTTP
// only without them.
func TestProtocolVersionExplained(t *testing.T) {
	dir := t.TempDir()
	expect(t, mcpbridge(t, dir, "", nil, "info"), 0, "  protocol:     2026-07-28\n")
	base := demoHTTP(t)
	r := mcpbridge(t, dir, "", nil, "info", "--url", base+"/mcp")
	expect(t, r, 0, "  protocol:     2025-11-25 *\n", "\n* the newest protocol that server accepts over its transport; mcpbridge speaks up to 2026-07-28\n")
	// Said once, whatever the servers: here the demo twice over HTTP.
	cfg := writeConfig(t, dir, "two.json", `{"mcpServers": {"a": {"url": "`+base+`/mcp"}, "b": {"url": "`+base+`/mcp"}}}`)
	r = mcpbridge(t, dir, "", nil, "info", "--config", cfg)
	if n := strings.Count(r.out, "newest protocol"); r.code != 0 || n != 1 || strings.Count(r.out, "2025-11-25 *") != 2 {
		t.Errorf("exit %d, the note said %d times:\n%s", r.code, n, r.out)
	}
}
