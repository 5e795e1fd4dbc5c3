package chat

import (
	"bytes"
	"errors"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/tool"
)

// The chat's lines about calls show neither the model's nor the server's
// escapes.
func TestCallLogClean(t *testing.T) {
	var out bytes.Buffer
	log := &callLog{w: &out}
	paint := llm.ToolCall{ID: "1", Name: "paint" + hostile.Escapes, Arguments: []byte(`{"color":"` + hostile.Escapes + `"}`)}
	fail := llm.ToolCall{ID: "2", Name: "fail"}
	log.asked([]llm.ToolCall{paint, fail})
	log.started(paint)(tool.Text(hostile.Escapes+"painted\nred"), nil)
	log.started(fail)(tool.Reply{}, errors.New("failed"+hostile.Escapes+"\nsecond line"))
	want := "→ [1] paint {\"color\":\"\"}\n→ [2] fail {}\n← [1] paint: painted\n← [2] fail: failed second line\n"
	if got := out.String(); got != want || untrusted.Text(got) != got {
		t.Errorf("got %q, want %q", got, want)
	}
}
