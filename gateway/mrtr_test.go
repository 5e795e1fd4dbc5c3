package gateway_test

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/toolset"
)

// A server's question in the result of a prompts/get or a resources/read
// reaches the client that asked, of either generation, and its answer the
// server, as a tool call's does (TestAQuestionInTheResultReachesTheCallersClient).
func TestAQuestionOfAPromptOrAResourceReachesTheClient(t *testing.T) {
	g := start(t, []toolset.ServerConfig{asker(t)})
	url, _ := serve(t, g)
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			asked := make(chan string, 8)
			cs := connect(t, url, v, answering(asked), nil)
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
			res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "memo://asker/greeting"})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Contents) != 1 || res.Contents[0].Text != "hello Ada" {
				t.Errorf("resource %+v", res.Contents)
			}
			if got := question(asked); got != "elicit: Who are you?" {
				t.Errorf("resource: asked %q", got)
			}
		})
	}
}
