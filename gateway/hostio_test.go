package gateway_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/internal/testing/npmtest"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/toolset"
)

// answering is a client that answers what servers ask of it: a form with
// a name, a sampling request with a text that names the prompt's first
// words, and records each question.
func answering(asked chan<- string) *mcp.ClientOptions {
	return &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked <- "elicit: " + req.Params.Message
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada", "tag": "work"}}, nil
		},
		CreateMessageWithToolsHandler: func(_ context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
			asked <- "sample"
			return &mcp.CreateMessageWithToolsResult{Role: "assistant", Model: "client-model", Content: []mcp.Content{&mcp.TextContent{Text: "sampled by the client"}}}, nil
		},
	}
}

// question is the question the client was asked last, "" if none.
func question(asked <-chan string) string {
	select {
	case q := <-asked:
		return q
	default:
		return ""
	}
}

// joined is the text parts of res, one a line.
func joined(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text + "\n")
		}
	}
	return b.String()
}

// asker is a server of protocol 2026-07-28 whose tool ask, prompt
// greeting and resource memo://asker/greeting each ask for a name in
// their result (input_required) and greet it once answered.
func asker(t *testing.T) config.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, nil)
	who := mcp.InputRequestMap{"who": &mcp.ElicitParams{
		Message:         "Who are you?",
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
	}}
	greeting := func(answers mcp.InputResponseMap) (string, bool) {
		answer, ok := answers["who"].(*mcp.ElicitResult)
		if !ok {
			return "", false
		}
		return "hello " + answer.Content["name"].(string), true
	}
	s.AddTool(&mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		text, ok := greeting(req.Params.InputResponses)
		if !ok {
			return &mcp.CallToolResult{InputRequests: who}, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "greeting"}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		text, ok := greeting(req.Params.InputResponses)
		if !ok {
			return &mcp.GetPromptResult{InputRequests: who}, nil
		}
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}, nil
	})
	s.AddResource(&mcp.Resource{URI: "memo://asker/greeting", Name: "greeting"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		text, ok := greeting(req.Params.InputResponses)
		if !ok {
			return &mcp.ReadResourceResult{InputRequests: who}, nil
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: text}}}, nil
	})
	return config.Server{Name: "asker", URL: serveStateless(t, s, nil), Required: true}
}

// A server's question in its call's result reaches the client that made
// the call, of either generation, and its answer the server: a stateless
// client is handed the result as the server wrote it and calls again with
// the answer, a session client is asked by the gateway. A prompts/get's
// and a resources/read's alike.
func TestAQuestionInTheResultReachesTheCallersClient(t *testing.T) {
	g := start(t, []config.Server{asker(t)}, nil)
	url, _ := serve(t, g)
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			asked := make(chan string, 8)
			cs := connect(t, url, v, answering(asked), nil)
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "asker_ask", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			if got := text(t, res); got != "hello Ada" {
				t.Errorf("result %q", got)
			}
			if got := question(asked); got != "elicit: Who are you?" {
				t.Errorf("asked %q", got)
			}
			pr, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "asker_greeting"})
			if err != nil {
				t.Fatal(err)
			}
			if len(pr.Messages) != 1 || pr.Messages[0].Content.(*mcp.TextContent).Text != "hello Ada" {
				t.Errorf("prompt %+v", pr.Messages)
			}
			if got := question(asked); got != "elicit: Who are you?" {
				t.Errorf("prompt: asked %q", got)
			}
			read, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "memo://asker/greeting"})
			if err != nil {
				t.Fatal(err)
			}
			if len(read.Contents) != 1 || read.Contents[0].Text != "hello Ada" {
				t.Errorf("resource %+v", read.Contents)
			}
			if got := question(asked); got != "elicit: Who are you?" {
				t.Errorf("resource: asked %q", got)
			}
		})
	}
}

// The demo's tag_report is a task of the 2026-07-28 extension that asks
// for its tag while it runs: the gateway follows it and asks the session
// client that made the call.
func TestATaskAsksTheCallersClient(t *testing.T) {
	g := start(t, []config.Server{demoServer(t)}, nil)
	url, _ := serve(t, g)
	asked := make(chan string, 8)
	cs := connect(t, url, versions[1], answering(asked), nil)
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "demo_add_note", Arguments: map[string]any{"title": "plan", "body": "the plan", "tags": []string{"work"}}}); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "demo_tag_report", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); res.IsError || !strings.Contains(got, "plan") {
		t.Errorf("result %q (isError %v)", got, res.IsError)
	}
	if got := question(asked); got != "elicit: Which tag should the report be on?" {
		t.Errorf("asked %q", got)
	}
}

// Against server-everything (protocol 2025-11-25, whose server sends its
// requests on its own during a call): a session client that made the call
// is asked (a form, its model, a research task's clarification), and the
// roots the server learns are the gateway's; a stateless client is asked
// in its call's result, the call held for its answer.
func TestServerEverythingAsksTheCallersClient(t *testing.T) {
	t.Parallel()
	bin := npmtest.Bin(t, "mcp-server-everything")
	dir := t.TempDir()
	roots := &toolset.Options{Server: func(config.Server) *mcptool.Options { return &mcptool.Options{Roots: []string{dir}} }}
	g := start(t, []config.Server{{Name: "everything", Command: bin, Args: []string{"stdio"}, Required: true}},
		&gateway.Options{Toolset: roots})
	url, _ := serve(t, g)
	asked := make(chan string, 8)
	cs := connect(t, url, versions[1], answering(asked), nil)
	call := func(cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "everything_" + name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}

	if got := joined(call(cs, "trigger-elicitation-request", nil)); !strings.Contains(got, "Name: Ada") {
		t.Errorf("elicitation: %q", got)
	}
	if got := question(asked); !strings.HasPrefix(got, "elicit: ") {
		t.Errorf("asked %q", got)
	}
	if got := joined(call(cs, "trigger-sampling-request", map[string]any{"prompt": "Say something.", "maxTokens": 50})); !strings.Contains(got, "sampled by the client") {
		t.Errorf("sampling: %q", got)
	}
	if got := question(asked); got != "sample" {
		t.Errorf("asked %q", got)
	}
	if got := joined(call(cs, "get-roots-list", nil)); !strings.Contains(got, "file://"+dir) {
		t.Errorf("roots: %q", got)
	}
	res := call(cs, "simulate-research-query", map[string]any{"topic": "python", "ambiguous": true})
	if got := joined(res); !strings.Contains(got, "python") || res.IsError {
		t.Errorf("research: %q", got)
	}
	if got := question(asked); !strings.HasPrefix(got, "elicit: ") {
		t.Errorf("asked %q", got)
	}

	// A stateless client is asked in its call's result what the server
	// asks on its own: the gateway holds the call for its answer.
	stateless := connect(t, url, versions[0], answering(asked), nil)
	if got := joined(call(stateless, "trigger-elicitation-request", nil)); !strings.Contains(got, "Name: Ada") {
		t.Errorf("a stateless client asked on the server's own: %q", got)
	}
	if got := question(asked); !strings.HasPrefix(got, "elicit: ") {
		t.Errorf("the stateless client was asked %q", got)
	}
	if got := joined(call(cs, "trigger-elicitation-request", nil)); !strings.Contains(got, "Name: Ada") {
		t.Errorf("after: %q", got)
	}
}
