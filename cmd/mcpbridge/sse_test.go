package main_test

import "testing"

// info over the legacy SSE transport lists the demo's skills (a custom
// method, which go-sdk's own SSE handler refused with 400).
func TestInfoOverSSEListsSkills(t *testing.T) {
	base := demoHTTP(t)
	r := mcpbridge(t, t.TempDir(), "", nil, "info", "--url", base+"/sse")
	expect(t, r, 0, "skills:       weekly-review: Review the week's notes")
}
