package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/form"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/tool"
)

// asking returns a server whose tool greet asks for a name the way
// protocol 2026-07-28 has a tool ask (SEP-2322: an input_required result;
// the client answers and calls again), and says what it got.
func asking() *mcp.Server {
	server := newServer("asks")
	addTool(server, "greet", func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if answer, ok := req.Params.InputResponses["name"].(*mcp.ElicitResult); ok && req.Params.RequestState == "asked" {
			if answer.Action != "accept" {
				return textResult("no name: " + answer.Action), nil
			}
			return textResult("hello " + answer.Content["name"].(string)), nil
		}
		return &mcp.CallToolResult{RequestState: "asked", InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{
			Message:         "What is your name?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","minLength":2},"age":{"type":"integer"}},"required":["name"]}`),
		}}}, nil
	})
	return server
}

// answering returns an elicitor that gives answer, and records what it
// was asked.
func answering(answer tool.Answer, asked *tool.Elicitation) tool.Elicitor {
	return func(_ context.Context, e *tool.Elicitation) (tool.Answer, error) {
		*asked = *e
		return answer, nil
	}
}

func TestElicitation(t *testing.T) {
	var asked tool.Elicitation
	accept := mcpclient.WithElicitation(answering(tool.Answer{Action: "accept", Content: map[string]any{"name": "Ada"}}, &asked))
	inMemory, _ := inProcess(t, asking(), accept)
	overHTTP := connectURL(t, serveHTTP(t, asking(), nil).URL, mcpclient.WithName("notes"), accept)
	for _, p := range []*mcpclient.Provider{inMemory, overHTTP} {
		if got, err := callText(context.Background(), p, "greet", nil); err != nil || got != "hello Ada" {
			t.Fatalf("got %q, %v", got, err)
		}
		// The host is told who asks, during which call, why, and for
		// what, in the server's order.
		f, err := form.Parse(asked.Schema)
		if asked.Server != "notes" || asked.Tool != "greet" || asked.Message != "What is your name?" ||
			err != nil || len(f.Fields) != 2 || f.Fields[0].Name != "name" || !f.Fields[0].Required {
			t.Fatalf("asked %+v", asked)
		}
	}
	// Without the option the provider cannot answer.
	p2, _ := inProcess(t, asking())
	if got, err := callText(context.Background(), p2, "greet", nil); err == nil || strings.Contains(got, "hello") {
		t.Fatalf("without elicitation: %q, %v", got, err)
	}
}

// An answer that does not fit the form is not sent: the call fails, and
// the server never sees it; a decline reaches the server as one.
func TestElicitationAnswerChecked(t *testing.T) {
	var asked tool.Elicitation
	answer := tool.Answer{Action: "accept", Content: map[string]any{"name": "A"}}
	p, _ := inProcess(t, asking(), mcpclient.WithElicitation(func(ctx context.Context, e *tool.Elicitation) (tool.Answer, error) {
		return answering(answer, &asked)(ctx, e)
	}))
	if got, err := callText(context.Background(), p, "greet", nil); err == nil || !strings.Contains(err.Error(), `field "name": 1 characters (want at least 2)`) {
		t.Fatalf("an answer that does not fit: %q, %v", got, err)
	}
	answer = tool.Answer{Action: "decline"}
	if got, err := callText(context.Background(), p, "greet", nil); err != nil || got != "no name: decline" {
		t.Fatalf("declined: %q, %v", got, err)
	}
}

// A call whose context carries an elicitor (as package agent's calls do)
// is asked through it rather than through the provider's.
func TestElicitationFromTheCallsContext(t *testing.T) {
	var byProvider, byCall tool.Elicitation
	p, _ := inProcess(t, asking(), mcpclient.WithElicitation(answering(tool.Answer{Action: "cancel"}, &byProvider)))
	ctx := tool.WithElicitor(context.Background(), answering(tool.Answer{Action: "accept", Content: map[string]any{"name": "Grace"}}, &byCall))
	if res, err := p.Handler().Call(ctx, "greet", nil); err != nil || res.Text() != "hello Grace" {
		t.Fatalf("got %q, %v", res.Text(), err)
	}
	if byProvider.Message != "" || byCall.Tool != "greet" {
		t.Fatalf("asked the provider's %+v, the call's %+v", byProvider, byCall)
	}
}

// A form outside the specification's subset is refused before the host
// sees it, and so is a URL that is not http or https.
func TestElicitationRefusesBadRequests(t *testing.T) {
	server := newServer("bad")
	for name, params := range map[string]*mcp.ElicitParams{
		"format": {Message: "m", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","format":"ipv4"}}}`)},
		"script": {Mode: "url", Message: "m", URL: "javascript:alert(1)", ElicitationID: "1"},
	} {
		addTool(server, name, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.Params.InputResponses != nil {
				return textResult("answered"), nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"x": params}}, nil
		})
	}
	var asked atomic.Int32
	p, _ := inProcess(t, server, mcpclient.WithElicitation(func(context.Context, *tool.Elicitation) (tool.Answer, error) {
		asked.Add(1)
		return tool.Answer{Action: "accept"}, nil
	}))
	for name, want := range map[string]string{"format": `format "ipv4"`, "script": "absolute http or https URL"} {
		if got, err := callText(context.Background(), p, name, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
	if asked.Load() != 0 {
		t.Fatalf("the host was asked %d times", asked.Load())
	}
}

// urlFirst returns a server whose tool pay fails with -32042 (URL
// elicitation required, 2025-11-25) until the user has completed the page
// it names; complete, given the server's session, says it is complete.
func urlFirst(done *atomic.Bool) (*mcp.Server, func(ss *mcp.ServerSession)) {
	server := newServer("pays")
	var session atomic.Pointer[mcp.ServerSession]
	addTool(server, "pay", func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		session.Store(req.Session)
		if !done.Load() {
			return nil, mcp.URLElicitationRequiredError([]*mcp.ElicitParams{{Mode: "url", ElicitationID: "e-1",
				URL: "https://pay.example.com/checkout?id=1", Message: "Pay first."}})
		}
		return textResult("paid"), nil
	})
	return server, func(*mcp.ServerSession) {
		done.Store(true)
		session.Load().NotifyElicitationComplete(context.Background(), &mcp.ElicitationCompleteParams{ElicitationID: "e-1"})
	}
}

// A server that needs a URL elicitation completed first: the user is shown
// the URL and its reason, and once they accept and the server says the
// page is done, the call is sent again. A user who declines gets a
// refusal; a server that never says it is done times the call out.
func TestURLElicitationRequired(t *testing.T) {
	var done atomic.Bool
	server, complete := urlFirst(&done)
	var asked tool.Elicitation
	action := "accept"
	p, _ := inProcess(t, server, mcpclient.WithElicitation(func(_ context.Context, e *tool.Elicitation) (tool.Answer, error) {
		asked = *e
		if action == "accept" {
			complete(nil) // the user opened the page and finished there
		}
		return tool.Answer{Action: action}, nil
	}))
	if got, err := callText(context.Background(), p, "pay", nil); err != nil || got != "paid" {
		t.Fatalf("got %q, %v", got, err)
	}
	if asked.URL != "https://pay.example.com/checkout?id=1" || asked.Message != "Pay first." || asked.Schema != nil || asked.Tool != "pay" {
		t.Fatalf("asked %+v", asked)
	}
	done.Store(false)
	action = "decline"
	var refused *tool.RefusedError
	if _, err := callText(context.Background(), p, "pay", nil); !errors.As(err, &refused) || !strings.Contains(refused.Message, "did not (decline)") {
		t.Fatalf("declined: %v", err)
	}
}

func TestURLElicitationNeverCompleted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var done atomic.Bool
		server, _ := urlFirst(&done)
		p, _ := inProcess(t, server, mcpclient.WithCallTimeout(time.Minute), mcpclient.WithElicitation(func(context.Context, *tool.Elicitation) (tool.Answer, error) {
			return tool.Answer{Action: "accept"}, nil
		}))
		var te *mcpclient.TransportError
		if _, err := callText(context.Background(), p, "pay", nil); !errors.As(err, &te) || !te.Timeout() {
			t.Fatalf("got %v; want the call's timeout", err)
		}
	})
}
