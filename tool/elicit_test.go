package tool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/tool"
)

// Elicit asks the elicitor the context carries, and lets through only
// what fits: an accepted form that does not fit is an error, a URL's
// acceptance carries no content, and a decline none either.
func TestElicit(t *testing.T) {
	form := &tool.Elicitation{Message: "how many?", Schema: json.RawMessage(`{"properties": {"n": {"type": "integer"}}, "required": ["n"]}`)}
	if _, err := tool.Elicit(context.Background(), form); err == nil || !strings.Contains(err.Error(), "no way to ask the user") {
		t.Fatalf("without an elicitor: %v", err)
	}
	answer := tool.Answer{Action: "accept", Content: map[string]any{"n": 3}}
	ctx := tool.WithElicitor(context.Background(), func(context.Context, *tool.Elicitation) (tool.Answer, error) { return answer, nil })
	if a, err := tool.Elicit(ctx, form); err != nil || a.Content["n"] != 3 {
		t.Fatalf("accepted: %v, %v", a, err)
	}
	answer.Content = map[string]any{"n": "three"}
	if _, err := tool.Elicit(ctx, form); err == nil || !strings.Contains(err.Error(), `field "n"`) {
		t.Fatalf("an answer that does not fit: %v", err)
	}
	if a, err := tool.Elicit(ctx, &tool.Elicitation{URL: "https://example.com/pay"}); err != nil || a.Action != "accept" || a.Content != nil {
		t.Fatalf("URL accepted: %v, %v", a, err)
	}
	answer = tool.Answer{Action: "decline", Content: map[string]any{"n": 1}}
	if a, err := tool.Elicit(ctx, form); err != nil || a.Action != "decline" || a.Content != nil {
		t.Fatalf("declined: %v, %v", a, err)
	}
	answer = tool.Answer{Action: "maybe"}
	if _, err := tool.Elicit(ctx, form); err == nil {
		t.Fatal("an unknown action passed")
	}
	if _, err := tool.Elicit(ctx, &tool.Elicitation{}); err == nil {
		t.Fatal("an elicitation of neither mode passed")
	}
	// A schema outside the specification's subset is refused, naming the
	// property, before anyone is asked.
	asked := false
	ctx = tool.WithElicitor(context.Background(), func(context.Context, *tool.Elicitation) (tool.Answer, error) {
		asked = true
		return tool.Answer{Action: "accept"}, nil
	})
	nested := &tool.Elicitation{Schema: json.RawMessage(`{"properties": {"address": {"type": "object", "properties": {"city": {"type": "string"}}}}}`)}
	if _, err := tool.Elicit(ctx, nested); err == nil || !strings.Contains(err.Error(), `property "address"`) || asked {
		t.Fatalf("a nested object: %v (asked: %v)", err, asked)
	}
}
