package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/agent"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/policy"
	"github.com/mcpbridge/mcpbridge/tool"
)

// filesProvider is a server named "files" whose tool find links to its
// resource file:///report.md, a long text.
func filesProvider(t *testing.T) *mcpclient.Provider {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "find", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "found one"},
				&mcp.ResourceLink{URI: "file:///report.md", Name: "report", MIMEType: "text/markdown"},
			}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "file:///report.md", Name: "report"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: "# Report\n" + strings.Repeat("x", 500)}}}, nil
		})
	p := mcpclient.FromServer("files", s)
	if err := p.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// A link in a tool's result names its server, and the model follows it with
// read_resource, whose answer is fitted to the model as every result is.
func TestReadResourceFollowsALink(t *testing.T) {
	model := &scripted{turns: []func(llm.Request) llm.Message{
		calls(tc("1", "find", `{}`)),
		calls(tc("2", agent.ReadResourceName, `{"uri": "file:///report.md", "server": "files"}`)),
		answer("done"),
	}}
	a, err := agent.New(agent.Config{Model: model, Tools: []tool.Source{filesProvider(t)}, ResultBudget: 100})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(context.Background(), []llm.Message{llm.UserText("find the report")})
	if err != nil {
		t.Fatal(err)
	}
	if got := toolResult(t, res.Messages, "1").Text(); !strings.Contains(got, `[resource link: file:///report.md (text/markdown) \"report\", server \"files\"]`) {
		t.Fatalf("the link: %s", got)
	}
	got := toolResult(t, res.Messages, "2").Text()
	if !strings.HasPrefix(got, "# Report\nxxx") || !strings.Contains(got, "more characters of this result were left out") {
		t.Fatalf("the read, cut to the budget: %s", got)
	}
	var desc string
	for _, d := range model.seen[0].Tools {
		if d.Name == agent.ReadResourceName {
			desc = d.Description
		}
	}
	if !strings.Contains(desc, `The servers with resources: "files".`) {
		t.Fatalf("read_resource: %q", desc)
	}
}

// With two servers the model names one; a name it gets wrong is answered
// with the one it meant, and nothing is read.
func TestReadResourceServers(t *testing.T) {
	files, notes := filesProvider(t), demoProvider(t)
	model := &scripted{turns: []func(llm.Request) llm.Message{
		calls(
			tc("1", agent.ReadResourceName, `{"uri": "notes://all"}`),
			tc("2", agent.ReadResourceName, `{"uri": "notes://all", "server": "note"}`),
			tc("3", agent.ReadResourceName, `{"uri": "notes://all", "server": "notes"}`),
			tc("4", agent.ReadResourceName, `{"uri": "file:///none", "server": "files"}`),
		),
		answer("done"),
	}}
	a, err := agent.New(agent.Config{Model: model, Tools: []tool.Source{files, notes}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(context.Background(), []llm.Message{llm.UserText("read")})
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{
		"1": `The call was refused and did not run: say which server the resource is on: one of "files", "notes"`,
		"2": `no server "note" has resources; did you mean "notes"?`,
		"3": "# Notes",
		"4": "The tool ran and failed:",
	} {
		if got := toolResult(t, res.Messages, id).Text(); !strings.Contains(got, want) {
			t.Errorf("call %s: %s\nwant %s", id, got, want)
		}
	}
}

// No server with resources, no read_resource; a policy may deny it as it
// denies any tool.
func TestReadResourceOffered(t *testing.T) {
	offered := func(cfg agent.Config) []string {
		t.Helper()
		var names []string
		for _, d := range firstRequest(t, cfg).Tools {
			names = append(names, d.Name)
		}
		return names
	}
	echo, _ := tool.Func("echo", "echo", func(_ context.Context, in struct{}) (string, error) { return "", nil })
	if names := offered(agent.Config{Tools: []tool.Source{echo}}); len(names) != 1 || names[0] != "echo" {
		t.Fatalf("no resources: %v", names)
	}
	deny, err := policy.New(policy.Config{Deny: []string{agent.ReadResourceName}})
	if err != nil {
		t.Fatal(err)
	}
	if names := offered(agent.Config{Tools: []tool.Source{filesProvider(t)}, Policy: deny}); len(names) != 1 || names[0] != "find" {
		t.Fatalf("denied: %v", names)
	}
}
