package gateway_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/internal/catalog"
)

// A gateway in front of one server, serving a client in memory as a desktop
// host is served over stdio (Run with &mcp.StdioTransport{}); Handler serves
// the same over HTTP.
func Example() {
	ctx := context.Background()
	// The server to front: one tool, over streamable HTTP.
	hello := mcp.NewServer(&mcp.Implementation{Name: "hello"}, nil)
	mcp.AddTool(hello, &mcp.Tool{Name: "greet", Description: "Greet someone"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Name string `json:"name"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hello, " + in.Name}}}, nil, nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return hello }, nil))
	defer srv.Close()

	g, err := gateway.Start(ctx, &catalog.Config{Servers: []catalog.ServerConfig{{Name: "hello", URL: srv.URL}}})
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()

	clientSide, serverSide := mcp.NewInMemoryTransports()
	served := make(chan error, 1)
	go func() { served <- g.Run(ctx, serverSide) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host"}, nil).Connect(ctx, clientSide, nil)
	if err != nil {
		log.Fatal(err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tools.Tools {
		fmt.Println(t.Name)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hello_greet", Arguments: map[string]any{"name": "Ada"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	cs.Close()
	<-served // the client went away
	// Output:
	// hello_greet
	// Hello, Ada
}
