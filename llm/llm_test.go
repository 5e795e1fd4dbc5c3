package llm_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/tool"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestMessageText(t *testing.T) {
	m := llm.Message{Role: llm.RoleUser, Parts: []tool.Part{tool.TextPart{Text: "a"}, tool.ImagePart{MIMEType: "image/png", Data: []byte{1}}, tool.TextPart{Text: "b"}}}
	if got := m.Text(); got != "a\nb" {
		t.Errorf("Text() = %q", got)
	}
}

func TestToolMessages(t *testing.T) {
	call := llm.ToolCall{ID: "c1", Name: "f"}
	r := llm.ToolResult(call, tool.Text("ok"))
	if r.Role != llm.RoleTool || r.ToolCallID != "c1" || r.ToolName != "f" || r.IsError || r.Text() != "ok" {
		t.Errorf("ToolResult = %+v", r)
	}
	e := llm.ToolError(call, "bad")
	if !e.IsError || e.ToolCallID != "c1" || e.Text() != "bad" {
		t.Errorf("ToolError = %+v", e)
	}
}

func TestAPIError(t *testing.T) {
	cause := errors.New("sdk error")
	err := fmt.Errorf("wrapped: %w", &llm.APIError{Vendor: "openai", StatusCode: 429, Type: "requests", Code: "rate_limit_exceeded", Message: "slow down", Err: cause})
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, cause) {
		t.Fatal("APIError does not unwrap")
	}
	if got, want := apiErr.Error(), "openai: HTTP 429 Too Many Requests: requests: rate_limit_exceeded: slow down"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	for status, want := range map[int]bool{400: false, 401: false, 408: true, 429: true, 500: true, 529: true} {
		if got := (&llm.APIError{StatusCode: status}).Retryable(); got != want {
			t.Errorf("Retryable(%d) = %v", status, got)
		}
	}
}
