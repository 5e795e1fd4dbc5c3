package main_test

import (
	"strings"
	"testing"
)

// A model's parallel calls are shown in the model's order as it asks for
// them, numbered, before any result; each result, whenever its call ends,
// carries its call's number and tool.
func TestChatParallelCalls(t *testing.T) {
	slow := `{"id":"c1","type":"function","function":{"name":"slow_count","arguments":"{\"to\":2}"}}`
	add := `{"id":"c2","type":"function","function":{"name":"add_note","arguments":"{\"title\":\"milk\",\"body\":\"buy milk\"}"}}`
	url, _ := fakeOpenAI(t, slow, add)
	env := []string{"OPENAI_BASE_URL=" + url, "OPENAI_API_KEY=test", "ANTHROPIC_API_KEY="}
	r := mcpbridge(t, t.TempDir(), "", env, "chat", "-p", "count, and remember milk", "--model", "m")
	expect(t, r, 0, "← [1] slow_count: ", "← [2] add_note: added note #1: milk")
	first, second := strings.Index(r.err, `→ [1] slow_count {"to":2}`), strings.Index(r.err, `→ [2] add_note {"title":"milk","body":"buy milk"}`)
	if first < 0 || second < first || strings.Index(r.err, "←") < second {
		t.Errorf("want both calls in the model's order, then the results:\n%s", r.err)
	}
}
