package mcptool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/tool"
)

// A stdio server, its tools, and calls through the handler composed with a
// local tool. Here the server is the bundled demo, started from this very
// binary; any command works the same way, for example
// mcptool.FromCommand("npx", []string{"-y", "@modelcontextprotocol/server-memory"}).
func ExampleFromCommand() {
	self, _ := os.Executable()
	notes := mcptool.FromCommand(self, nil,
		mcptool.WithName("notes"),
		mcptool.WithEnv(map[string]string{demo.ChildEnv: "stdio", "GORACE": "atexit_sleep_ms=0"}),
		mcptool.WithAllowedTools("add_note", "get_note"))
	ctx := context.Background()
	if err := notes.Connect(ctx); err != nil {
		log.Fatal(err)
	}
	defer notes.Close()

	for _, def := range notes.Tools() {
		fmt.Println("tool:", def.Name)
	}
	today, _ := tool.Func("today", "Today's date.", func(context.Context, struct{}) (string, error) {
		return "2026-11-30", nil
	})
	h := tool.Compose(tool.Serve(today), notes.Handler())

	res, _ := h.Call(ctx, "add_note", json.RawMessage(`{"title": "hello", "body": "world"}`))
	fmt.Println(res.Text())
	res, _ = h.Call(ctx, "today", nil)
	fmt.Println(res.Text())
	_, err := h.Call(ctx, "get_note", json.RawMessage(`{"id": 9}`))
	fmt.Println(err)
	// Output:
	// tool: add_note
	// tool: get_note
	// added note #1: hello
	// 2026-11-30
	// tool "get_note" failed: no note with id 9
}
