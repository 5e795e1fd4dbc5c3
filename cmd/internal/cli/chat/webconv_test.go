package chat

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// The conversations kept are bounded: their number (the least recently
// used goes), the bytes of each one's transcript (its oldest events go),
// and an event's result for an app (kept without it past its bound).
func TestConversationsBounded(t *testing.T) {
	var cs conversations
	first := cs.get("first")
	for i := range maxConversations - 1 {
		cs.get(fmt.Sprint("c", i))
	}
	if cs.get("first") != first {
		t.Fatal("a conversation went before the bound")
	}
	cs.get("one more") // c0 is now the least recently used
	if len(cs.byID) != maxConversations || cs.byID["c0"] != nil || cs.byID["first"] != first {
		t.Fatalf("%d conversations kept, c0 kept: %v, first kept: %v", len(cs.byID), cs.byID["c0"] != nil, cs.byID["first"] == first)
	}

	big := strings.Repeat("x", maxEventResult)
	cs.record(first, webEvent{Type: "result", ID: "c1", Text: "ok", Result: map[string]any{"content": big}})
	var kept webEvent
	if err := json.Unmarshal(first.events[0], &kept); err != nil || kept.Result != nil || kept.Text != "ok" {
		t.Fatalf("a result over the bound was kept as %.200s (%v)", first.events[0], err)
	}
	line := strings.Repeat("y", 1000)
	for range 2 * maxTranscript / len(line) {
		cs.record(first, webEvent{Type: "answer", Text: line})
	}
	if first.bytes > maxTranscript || first.bytes < maxTranscript-2*len(line) || strings.Contains(string(first.events[0]), `"result"`) {
		t.Fatalf("a transcript of %d bytes in %d events, its first %.80s", first.bytes, len(first.events), first.events[0])
	}
}
