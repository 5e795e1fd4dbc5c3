package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// inquirer is a server of protocol 2025-11-25 (with sessions) whose tool
// block waits until its call is cancelled, telling started when it has
// begun, and whose completions of the prompt greet ask the client for a
// name (elicitation, sent on the completion's own stream) and complete
// with the name given.
func inquirer(t *testing.T, started chan<- struct{}) config.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "inq", Version: "1"}, &mcp.ServerOptions{
		CompletionHandler: func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "partial input: " + req.Params.Argument.Value,
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
			if err != nil {
				return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{"declined: " + err.Error()}}}, nil
			}
			name, _ := res.Content["name"].(string)
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{"answered: " + name}}}, nil
		},
	})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who"}}}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		started <- struct{}{}
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	return config.Server{Name: "inq", URL: serveSessions(t, s), Required: true}
}

// A server's question during one client's request of any method goes to
// that client alone: asked while only bob has a request open, bob answers
// it; asked during bob's completion while alice has a tool call open, it
// belongs to no single client and is declined, and alice is asked nothing.
func TestAQuestionGoesToItsRequestsClientAlone(t *testing.T) {
	started := make(chan struct{}, 1)
	g := start(t, []config.Server{inquirer(t, started)}, nil)
	url, _ := serve(t, g)
	aliceAsked, bobAsked := make(chan string, 8), make(chan string, 8)
	alice := connect(t, url, "2025-11-25", answering(aliceAsked), nil)
	bob := connect(t, url, "2025-11-25", answering(bobAsked), nil)
	complete := func() string {
		t.Helper()
		res, err := bob.Complete(t.Context(), &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "inq_greet"},
			Argument: mcp.CompleteParamsArgument{Name: "who", Value: "bob's secret"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Completion.Values) != 1 {
			t.Fatalf("completion: %v", res.Completion.Values)
		}
		return res.Completion.Values[0]
	}

	if got := complete(); got != "answered: Ada" {
		t.Fatalf("bob alone: the completion gave %q, want bob's own answer", got)
	}
	if q := question(bobAsked); q != "elicit: partial input: bob's secret" {
		t.Fatalf("bob alone: bob was asked %q", q)
	}

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := alice.CallTool(ctx, &mcp.CallToolParams{Name: "inq_block"})
		done <- err
	}()
	<-started
	got := complete()
	cancel()
	<-done
	if q := question(aliceAsked); q != "" {
		t.Fatalf("alice was asked bob's question: %q", q)
	}
	if q := question(bobAsked); q != "" {
		t.Errorf("bob was asked %q while alice had a call open: nothing says whose the question is", q)
	}
	if got == "answered: Ada" {
		t.Fatalf("bob's completion was answered by someone while alice had a call open")
	}
}

// serveSessions serves s with sessions (protocol 2025-11-25) over
// streamable HTTP on loopback until the test ends, and returns its URL.
func serveSessions(t *testing.T, s *mcp.Server) string {
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}
