package demo_test

import (
	"context"
	"fmt"
	"log"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The demo server is an ordinary *mcp.Server, so in-process tests can connect
// a client to it over in-memory transports without any subprocess or port.
func ExampleNew() {
	ctx := context.Background()
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := demo.New().Connect(ctx, serverT, nil)
	if err != nil {
		log.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, clientT, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		cs.Close()
		ss.Wait()
	}()

	for _, call := range []*mcp.CallToolParams{
		{Name: "add_note", Arguments: map[string]any{"title": "Buy milk", "body": "2 litres", "tags": []string{"home"}}},
		{Name: "list_notes"},
		{Name: "get_note", Arguments: map[string]any{"id": 7}},
	} {
		res, err := cs.CallTool(ctx, call)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: isError=%v %s\n", call.Name, res.IsError, res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// add_note: isError=false added note #1: Buy milk
	// list_notes: isError=false #1 Buy milk [home]
	// get_note: isError=true no note with id 7
}
