package main

import (
	"bytes"
	"errors"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/hostile"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/tool"
)

// The chat's lines about calls show neither the model's nor the server's
// escapes.
func TestShowCallsClean(t *testing.T) {
	var out bytes.Buffer
	show := showCalls(&streams{err: &out})
	show(llm.ToolCall{Name: "paint" + hostile.Escapes, Arguments: []byte(`{"color":"` + hostile.Escapes + `"}`)})(tool.Text(hostile.Escapes+"painted\nred"), nil)
	show(llm.ToolCall{Name: "fail"})(tool.Result{}, errors.New("failed"+hostile.Escapes+"\nsecond line"))
	want := "→ paint {\"color\":\"\"}\n← painted\n→ fail {}\n← failed second line\n"
	if got := out.String(); got != want || untrusted.Text(got) != got {
		t.Errorf("got %q, want %q", got, want)
	}
}
