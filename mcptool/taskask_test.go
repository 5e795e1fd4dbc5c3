package mcptool_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/mcptool"
)

// resultOnly is the caller of a client asked only in its call's result,
// which declared caps.
func resultOnly(caps *mcp.ClientCapabilities) mcptool.Caller {
	return mcptool.Caller{Relay: mcptool.ResultOnly{}, Capabilities: caps}
}

// formElicitation declares elicitation in form mode.
var formElicitation = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}

// A task the provider follows for a caller asked only in results returns
// its question to the caller, the task left waiting; the caller's next
// call answers it (tasks/update) and gets the task's result.
func TestATaskAsksACallerAnsweredInResults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, c := inProcess(t, demo.New(), mcptool.WithRelay())
		call(t, p.Handler(), "add_note", `{"title": "standup", "body": "at ten", "tags": ["work"]}`)
		_, err := p.CallToolResult(mcptool.WithCaller(context.Background(), resultOnly(formElicitation)), "tag_report", nil)
		var asking *mcptool.AskingTask
		if !errors.As(err, &asking) || asking.Tool != "tag_report" || asking.ID == "" || len(asking.Requests) != 1 {
			t.Fatalf("got %v; want the task asking", err)
		}
		q, ok := asking.Requests["tag"].(*mcp.ElicitParams)
		if !ok || !strings.Contains(q.Message, "Which tag") || c.get("tasks/cancel") != 0 {
			t.Fatalf("asked %#v, %d tasks/cancel", asking.Requests, c.get("tasks/cancel"))
		}
		again := resultOnly(formElicitation)
		again.Answering = asking
		again.InputResponses = mcp.InputResponseMap{"tag": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"tag": "work"}}}
		res, err := p.CallToolResult(mcptool.WithCaller(context.Background(), again), "tag_report", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := mcptool.ToText(res); !strings.Contains(got, `report on "work": 1 notes`) || c.get("tasks/update") != 1 || c.get("tools/call") != 2 {
			t.Errorf("result %q after %d tasks/update, %d tools/call", got, c.get("tasks/update"), c.get("tools/call"))
		}
		// Answering names the tool of the task: another's call is refused.
		if _, err := p.CallToolResult(mcptool.WithCaller(context.Background(), again), "broken_job", nil); !errors.As(err, new(*mcptool.ConfigError)) {
			t.Errorf("answering the task with a call of another tool: %v", err)
		}
	})
}

// A caller that did not declare elicitation is told what the task asked
// and what it would need, and the task, which no one will answer, is
// cancelled.
func TestATaskAsksACallerThatCannotAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, c := inProcess(t, demo.New(), mcptool.WithRelay())
		_, err := p.CallToolResult(mcptool.WithCaller(context.Background(), resultOnly(&mcp.ClientCapabilities{})), "tag_report", nil)
		var ue *mcptool.UnanswerableError
		if !errors.As(err, &ue) || ue.Server != "notes" || ue.Tool != "tag_report" {
			t.Fatalf("got %v; want an UnanswerableError", err)
		}
		msg := err.Error()
		for _, want := range []string{"Which tag should the report be on?", "declare elicitation", "io.modelcontextprotocol/tasks"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%q: want %q", msg, want)
			}
		}
		if strings.Count(msg, "mcptool:") != 1 || c.get("tasks/cancel") != 1 {
			t.Errorf("%q, %d tasks/cancel; want one prefix, the task cancelled", msg, c.get("tasks/cancel"))
		}
	})
}

// A 2025-11-25 task asks on its own, outside any result, so a caller asked
// only in results cannot be asked: the server is told so in words its
// client's user can act on, not the provider's.
func TestALegacyTaskAsksACallerAnsweredInResults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := connectLegacy(t, &legacyServer{}, mcptool.WithRelay())
		res, err := p.CallToolResult(mcptool.WithCaller(context.Background(), resultOnly(formElicitation)), "ask", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := mcptool.ToText(res); !strings.Contains(got, "only in its call's result") || !strings.Contains(got, "with a session (protocol 2025-11-25)") {
			t.Errorf("the server was told %q", got)
		}
	})
}
