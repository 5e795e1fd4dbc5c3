package mcpclient

import (
	"context"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/tool"
)

// echoModel answers every request with one text.
type echoModel struct{}

func (echoModel) Name() string { return "echo-1" }
func (echoModel) Vision() bool { return false }

func (echoModel) Generate(context.Context, llm.Request) (*llm.Response, error) {
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Parts: []tool.Part{tool.TextPart{Text: "sampled"}}}}, nil
}

// What a task asks of the host (a task of the 2026-07-28 extension asks in
// its input_required state) is answered by the hooks that answer the same
// request sent on its own, each kind of it, and refused, as unsupported,
// when the host gave no hook for it.
func TestTaskInputAnsweredByTheHostsHooks(t *testing.T) {
	ctx := context.Background()
	root, err := RootOf(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "tasks"}, nil)
	connect := func(opts ...Option) (*Provider, *session) {
		p := FromServer("tasks", server, opts...)
		if err := p.Connect(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		return p, p.conn.current()
	}
	text := func(c mcp.Content) *mcp.TextContent { return c.(*mcp.TextContent) }
	asks := map[string]mcp.InputRequest{
		"elicit":            &mcp.ElicitParams{Message: "which tag?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"tag": map[string]any{"type": "string"}}}},
		"sample":            &mcp.CreateMessageParams{MaxTokens: 10, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}},
		"sample with tools": &mcp.CreateMessageWithToolsParams{MaxTokens: 10, Messages: []*mcp.SamplingMessageV2{{Role: "user", Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}}}},
		"roots":             &mcp.ListRootsParams{},
	}

	p, s := connect(
		WithElicitation(func(context.Context, *tool.Elicitation) (tool.Answer, error) {
			return tool.Answer{Action: "accept", Content: map[string]any{"tag": "work"}}, nil
		}),
		WithSampling(Sampling{Model: echoModel{}}),
		WithRoots(root))
	// As a task's run asks: within the call that follows it.
	f := p.inflight.begin(ctx, "report")
	defer p.inflight.end(f)
	call := f.ctx
	for kind, req := range asks {
		res, err := p.answerInput(call, s, req)
		if err != nil {
			t.Errorf("%s: %v", kind, err)
			continue
		}
		switch res := res.(type) {
		case *mcp.ElicitResult:
			if res.Action != "accept" || res.Content["tag"] != "work" {
				t.Errorf("%s: %+v", kind, res)
			}
		case *mcp.CreateMessageWithToolsResult:
			if len(res.Content) != 1 || text(res.Content[0]).Text != "sampled" || res.Model != "echo-1" {
				t.Errorf("%s: %+v", kind, res)
			}
		case *mcp.ListRootsResult:
			if len(res.Roots) != 1 || res.Roots[0].URI != root.URI {
				t.Errorf("%s: %+v", kind, res)
			}
		default:
			t.Errorf("%s: answered with %T", kind, res)
		}
	}

	p, s = connect()
	f = p.inflight.begin(ctx, "report")
	defer p.inflight.end(f)
	call = f.ctx
	for kind, req := range asks {
		if kind == "elicit" {
			continue // answered by the call's own elicitor too: elicit_test.go
		}
		if _, err := p.answerInput(call, s, req); !errors.Is(err, errors.ErrUnsupported) {
			t.Errorf("%s without a hook: %v", kind, err)
		}
	}
}
