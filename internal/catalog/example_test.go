package catalog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http/httptest"
	"os"

	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
	"github.com/mcpbridge/mcpbridge/schema"
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
	config, err := catalog.Parse(data)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	tools, err := catalog.Start(ctx, config, catalog.WithVendor(schema.OpenAI))
	if err != nil {
		log.Fatal(err)
	}
	defer tools.Close()
	for _, s := range tools.Status() {
		fmt.Println(s.Name, s.State, s.Tools)
	}

	// Each turn of a conversation takes a snapshot: its tools do not
	// change while the turn runs (an agent.Agent takes one per run, the
	// Toolset being one of its agent.Config.Tools).
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

// A tool whose schema the vendor cannot take is held out of the catalog,
// saying why, while its server's other tools serve. Here Gemini meets a
// schema that recurses, which it cannot express.
func ExampleToolset_Quarantined() {
	h, err := hostile.New("tree-schema")
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()
	config := &catalog.Config{Servers: []catalog.ServerConfig{{Name: "garden", URL: srv.URL}}}
	ctx := context.Background()
	tools, err := catalog.Start(ctx, config, catalog.WithVendor(schema.Gemini))
	if err != nil {
		log.Fatal(err)
	}
	defer tools.Close()
	for _, d := range tools.Snapshot(ctx).Definitions() {
		fmt.Println("offered:", d.Name)
	}
	for _, q := range tools.Quarantined() {
		fmt.Println("held out:", q)
	}
	// Output:
	// offered: garden_flat
	// held out: server "garden": tool "tree": at /$defs/node/properties/kids/items/$ref: input schema cannot be lowered for gemini: reference "#/$defs/node" is recursive; Gemini's Schema cannot express recursion
}
