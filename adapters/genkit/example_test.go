package genkit_test

import (
	"context"
	"fmt"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	mcpgenkit "github.com/mcpbridge/mcpbridge/adapters/genkit"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/schema"
)

// An MCP server's tools in Genkit's Generate. The server is a go-sdk server
// written here; any other is reached the same way (mcptool.FromCommand for
// a command over stdio, mcptool.FromURL over HTTP), and a toolset.Toolset
// serves many. The model is played by greeterModel below: use any Genkit
// model (the googlegenai plugin's, say), and the vendor of its API as
// Options.Vendor.
func Example() {
	server := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "1.0.0"}, &mcp.ServerOptions{Instructions: "Greet people warmly."})
	type greeting struct {
		Name string `json:"name" jsonschema:"whom to greet"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "greet", Description: "Greet someone by name."},
		func(_ context.Context, _ *mcp.CallToolRequest, in greeting) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hello, " + in.Name + "!"}}}, nil, nil
		})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	greeter := mcptool.FromServer(server, &mcptool.Options{Name: "greeter"})
	if err := greeter.Connect(ctx); err != nil {
		fmt.Println(err)
		return
	}
	defer greeter.Close()

	g := genkit.Init(ctx)
	model := genkit.DefineModel(g, "example/greeter", &ai.ModelOptions{Supports: &ai.ModelSupports{Multiturn: true, Tools: true, SystemRole: true}}, greeterModel)
	// One Offer a Generate: the server's tools as they are now.
	offer, err := mcpgenkit.Tools(ctx, greeter, &mcpgenkit.Options{Vendor: schema.Gemini})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := genkit.Generate(ctx, g,
		ai.WithModel(model),
		ai.WithSystem("You are a helpful assistant.\n\n"+offer.System),
		ai.WithTools(offer.Tools...),
		ai.WithPrompt("Say hello to Ada."))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text())
	// Output:
	// The greeter says: Hello, Ada!
}

// greeterModel stands in for a model: it calls greet, then answers with
// what the tool said.
func greeterModel(_ context.Context, req *ai.ModelRequest, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
	last := req.Messages[len(req.Messages)-1]
	if last.Role == ai.RoleTool {
		said := last.Content[0].ToolResponse.Output.(string)
		return &ai.ModelResponse{Message: ai.NewModelTextMessage("The greeter says: " + said), Request: req}, nil
	}
	call := ai.NewToolRequestPart(&ai.ToolRequest{Name: "greet", Input: map[string]any{"name": "Ada"}, Ref: "1"})
	return &ai.ModelResponse{Message: &ai.Message{Role: ai.RoleModel, Content: []*ai.Part{call}}, Request: req}, nil
}
