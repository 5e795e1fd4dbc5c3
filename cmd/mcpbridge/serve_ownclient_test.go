package main_test

import "testing"

// mcpbridge is a client of its own gateway: it declares the tasks extension
// on every request, so the gateway hands it the task a server makes of a
// call, and calls no task of a server that follows tasks alike (the demo
// over stdio). A call that is no task is answered, and the gateway goes on
// serving: it once dereferenced the task the call did not become, and the
// whole gateway crashed on the first call.
func TestServeAnswersMcpbridgeAsItsClient(t *testing.T) {
	url, _, _ := startServe(t)
	cache := ownCache(t)
	expect(t, mcpbridge(t, "", "", cache, "call", "list_notes", "--url", url), 0, "no notes yet")
	expect(t, mcpbridge(t, "", "", cache, "call", "tag_report", `{"tag":"work"}`, "--url", url), 0, `report on "work"`)
	expect(t, mcpbridge(t, "", "", cache, "call", "list_notes", "--url", url), 0, "no notes yet")
}
