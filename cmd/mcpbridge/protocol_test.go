package main_test

import "testing"

// info says the protocol version agreed with each server, and explains one
// older than mcpbridge's newest: the demo speaks 2026-07-28 over stdio, but
// its HTTP endpoint keeps sessions, and go-sdk serves 2026-07-28 over HTTP
// only without them.
func TestProtocolVersionExplained(t *testing.T) {
	dir := t.TempDir()
	expect(t, mcpbridge(t, dir, "", nil, "info"), 0, "  protocol:     2026-07-28\n")
	base := demoHTTP(t)
	expect(t, mcpbridge(t, dir, "", nil, "info", "--url", base+"/mcp"), 0,
		"  protocol:     2025-11-25 (the newest this server accepts over this transport; mcpbridge speaks up to 2026-07-28)\n")
}
