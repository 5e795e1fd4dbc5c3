package toolset_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/schema"
	"github.com/mcpbridge/mcpbridge/toolset"
)

// Two servers from one config (the JSON encoder sorts them by name),
// started together, as one catalog for an
// OpenAI model. The server here is the bundled demo, which this program
// starts by running itself; a real config names npx, uvx or a URL.
func ExampleStart() {
	exe, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"notes":   map[string]any{"command": exe, "env": map[string]string{demo.ChildEnv: "stdio", "GORACE": "atexit_sleep_ms=0"}, "allowedTools": []string{"add_note", "list_notes"}},
		"archive": map[string]any{"command": "/nonexistent/archive-server"}, // optional: left out
	}})
	config, err := toolset.Parse(data)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	tools, err := toolset.Start(ctx, config, toolset.WithVendor(schema.OpenAI))
	if err != nil {
		log.Fatal(err)
	}
	defer tools.Close()
	for _, s := range tools.Status() {
		fmt.Println(s.Name, s.State, s.Tools)
	}

	// Each turn of a conversation takes a snapshot: its tools do not
	// change while the turn runs (agent.Config.Definitions and Handler).
	turn := tools.Snapshot(ctx)
	for _, d := range turn.Definitions() {
		fmt.Println(d.Name)
	}
	if _, err := turn.Handler().Call(ctx, "notes_add_note", json.RawMessage(`{"title": "milk", "body": "buy milk"}`)); err != nil {
		log.Fatal(err)
	}
	_, err = turn.Handler().Call(ctx, "notes_add_note", json.RawMessage(`{"title": 3, "body": "x"}`))
	fmt.Println(err)
	// Output:
	// archive failed 0
	// notes ready 2
	// notes_add_note
	// notes_list_notes
	// tool "notes_add_note" refused: argument "title": want string, got integer
}
