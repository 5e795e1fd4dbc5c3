package policy_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"

	"github.com/mcpbridge/mcpbridge/policy"
	"github.com/mcpbridge/mcpbridge/tool"
)

// A host serving the tools of an MCP server "fs" under namespaced names gates
// them: delete_* is denied under every name, read-only tools run freely, and
// anything else asks the user first (here, a user who always says no).
func Example() {
	// What the host knows: each tool by its namespaced name, its own name and
	// its alias. A real host builds this from its tool catalog.
	known := map[string]policy.Names{}
	for _, n := range []policy.Names{
		{Tool: "read_file", Server: "fs", Namespaced: "fs_read_file", Annotations: &tool.Annotations{ReadOnlyHint: true}},
		{Tool: "write_file", Server: "fs", Namespaced: "fs_write_file"},
		{Tool: "delete_file", Server: "fs", Namespaced: "fs_delete_file"},
	} {
		known[n.Namespaced], known[n.Tool], known["mcp__fs__"+n.Tool] = n, n, n
	}

	p, err := policy.New(policy.Config{
		Deny: []string{"delete_*"}, // the tool's own name: it holds under every name
		Resolver: func(name string) (policy.Names, bool) {
			n, ok := known[name]
			return n, ok
		},
		Approver: policy.AskUnlessReadOnly(func(_ context.Context, c policy.Call) (policy.Decision, error) {
			fmt.Printf("asking the user about %s %s\n", c.Tool, c.Args)
			return policy.Refuse(""), nil
		}),
	})
	if err != nil {
		log.Fatal(err)
	}

	fs := tool.HandlerFunc(func(_ context.Context, name string, _ json.RawMessage) (tool.Reply, error) {
		return tool.Text("ran " + name), nil
	})
	h := p.Handler(fs)

	for _, name := range []string{"fs_read_file", "fs_write_file", "fs_delete_file", "mcp__fs__delete_file"} {
		res, err := h.Call(context.Background(), name, json.RawMessage(`{"path": "notes.txt"}`))
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(res.Text())
	}
	fmt.Println("offer fs_delete_file:", p.Allowed("fs_delete_file"))
	// Output:
	// ran fs_read_file
	// asking the user about write_file {"path": "notes.txt"}
	// tool "fs_write_file" refused: the user declined to run "fs_write_file"
	// tool "fs_delete_file" refused: the tool "delete_file" is denied by policy pattern "delete_*"
	// tool "mcp__fs__delete_file" refused: the tool "delete_file" is denied by policy pattern "delete_*"
	// offer fs_delete_file: false
}

// A host that knows its tools as definitions (each MCP tool with its
// server and its own name in Origin) lets For teach the policy every name
// they go by. An allow matches a name the tool is served by, which names
// its server when the host namespaces: "fs_read_*" lets the namespaced
// name and the alias through, and nothing else; "read_*" alone would let
// through no tool of a namespaced host, so that it cannot reach another
// server's tool of that name.
func ExamplePolicy_For() {
	p, err := policy.New(policy.Config{Allow: []string{"fs_read_*"}})
	if err != nil {
		log.Fatal(err)
	}
	gate := p.For([]tool.Definition{
		{Name: "fs_read_file", Origin: tool.Origin{Server: "fs", Tool: "read_file"}},
		{Name: "fs_write_file", Origin: tool.Origin{Server: "fs", Tool: "write_file"}},
	})
	for _, name := range []string{"fs_read_file", "mcp__fs__read_file", "fs_write_file"} {
		fmt.Println(name, gate.Allowed(name))
	}
	// Output:
	// fs_read_file true
	// mcp__fs__read_file true
	// fs_write_file false
}

// A host that runs calls its own way asks Check first, and hands a refusal
// to the model as the tool's answer.
func ExamplePolicy_Check() {
	p, err := policy.New(policy.Config{Deny: []string{"drop_*"}})
	if err != nil {
		log.Fatal(err)
	}
	for _, name := range []string{"list_tables", "drop_table"} {
		err := p.Check(context.Background(), name, json.RawMessage(`{"table": "users"}`))
		var refused *tool.RefusedError
		if errors.As(err, &refused) {
			fmt.Println("the model reads:", refused.Message)
			continue
		}
		fmt.Println("run", name)
	}
	// Output:
	// run list_tables
	// the model reads: the tool "drop_table" is denied by policy pattern "drop_*"
}
