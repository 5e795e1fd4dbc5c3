package codeapi_test

import (
	"encoding/json"
	"fmt"

	"github.com/mcpbridge/mcpbridge/internal/codeapi"
	"github.com/mcpbridge/mcpbridge/tool"
)

// A server's tools as a script reaches them: each at a path of
// identifiers, declared in TypeScript, and found again by any of its
// names.
func Example() {
	api, err := codeapi.New([]tool.Definition{{
		Name:        "mcp__my-server__add-note",
		Description: "Add a note.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}`),
		Origin:      tool.Origin{Server: "my-server", Tool: "add-note"},
	}})
	if err != nil {
		panic(err)
	}
	fmt.Print(api.Declare(api.All()))
	i, _ := api.Find("tools.my_server.add_note")
	fmt.Println(api.Path(i), "calls", api.Name(i))
	// Output:
	// declare const tools: {
	//   my_server: {
	//     /** Add a note. */
	//     add_note(args: {
	//       title: string;
	//     }): Promise<any>;
	//   };
	// };
	// my_server.add_note calls mcp__my-server__add-note
}
