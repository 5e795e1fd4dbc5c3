package policy_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"path"
	"strings"

	"github.com/mcpbridge/mcpbridge/policy"
	"github.com/mcpbridge/mcpbridge/tool"
)

// fsTools is what a host serving the MCP server "fs" under namespaced
// names offers: each tool by its namespaced name, with its server and its
// own name in its Origin, and its annotations.
func fsTools() tool.Set {
	defs := []tool.Definition{
		{Name: "fs_read_file", Origin: tool.Origin{Server: "fs", Tool: "read_file"}, Annotations: &tool.Annotations{ReadOnlyHint: true}},
		{Name: "fs_write_file", Origin: tool.Origin{Server: "fs", Tool: "write_file"}},
		{Name: "fs_delete_file", Origin: tool.Origin{Server: "fs", Tool: "delete_file"}},
	}
	run := tool.HandlerFunc(func(_ context.Context, name string, _ json.RawMessage) (tool.Reply, error) {
		return tool.Text("ran " + name), nil
	})
	return tool.Set{Definitions: defs, Handler: run}
}

// A host gates what it offers: delete_* is denied under every name (the
// tool leaves the offer, and a call by its alias is refused too),
// read-only tools run freely, and anything else asks the user first (here,
// a user who always says no).
func Example() {
	p, err := policy.New(policy.Config{
		Deny: []string{"delete_*"}, // the tool's own name: it holds under every name
		Approver: policy.AskUnlessReadOnly(func(_ context.Context, c policy.Call) (policy.Decision, error) {
			fmt.Printf("asking the user about %s %s\n", c.Tool, c.Args)
			return policy.Refuse(""), nil
		}),
	})
	if err != nil {
		log.Fatal(err)
	}
	set := p.Gate(fsTools())
	for _, d := range set.Definitions {
		fmt.Println("offered:", d.Name)
	}
	for _, name := range []string{"fs_read_file", "fs_write_file", "mcp__fs__delete_file"} {
		res, err := set.Handler.Call(context.Background(), name, json.RawMessage(`{"path": "notes.txt"}`))
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(res.Text())
	}
	// Output:
	// offered: fs_read_file
	// offered: fs_write_file
	// ran fs_read_file
	// asking the user about write_file {"path": "notes.txt"}
	// tool "fs_write_file" refused: the user declined to run "fs_write_file"
	// tool "mcp__fs__delete_file" refused: the tool "delete_file" is denied by policy pattern "delete_*"
}

// An allow matches a name the tool is served by, which names its server
// when the host namespaces: "fs_read_*" lets the namespaced name and the
// alias through, and nothing else; "read_*" alone would let through no
// tool of a namespaced host, so that it cannot reach another server's tool
// of that name.
func ExamplePolicy_Gate() {
	p, err := policy.New(policy.Config{Allow: []string{"fs_read_*"}})
	if err != nil {
		log.Fatal(err)
	}
	set := p.Gate(fsTools())
	for _, d := range set.Definitions {
		fmt.Println("offered:", d.Name)
	}
	for _, name := range []string{"mcp__fs__read_file", "fs_write_file"} {
		_, err := set.Handler.Call(context.Background(), name, nil)
		fmt.Println(name, err == nil)
	}
	// Output:
	// offered: fs_read_file
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

// An approver of the host's own decides each call from what it knows of
// it: Approve runs the call, Refuse tells the model why not.
func ExampleApprove() {
	p, err := policy.New(policy.Config{
		Approver: func(_ context.Context, c policy.Call) (policy.Decision, error) {
			if c.Annotations.ReadOnly() || strings.Contains(string(c.Args), `"notes.txt"`) {
				return policy.Approve(), nil
			}
			return policy.Refuse("only notes.txt may be written"), nil
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	set := p.Gate(fsTools())
	for _, path := range []string{"notes.txt", ".bashrc"} {
		res, err := set.Handler.Call(context.Background(), "fs_write_file", json.RawMessage(`{"path": "`+path+`"}`))
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(res.Text())
	}
	// Output:
	// ran fs_write_file
	// tool "fs_write_file" refused: the user declined to run "fs_write_file": only notes.txt may be written
}

// New checks every pattern, so that a typo fails at start instead of
// silently matching nothing. The zero Config allows every call.
func ExampleNew() {
	_, err := policy.New(policy.Config{Deny: []string{"delete_[*"}})
	fmt.Println(err)
	fmt.Println(errors.Is(err, path.ErrBadPattern))

	p, err := policy.New(policy.Config{})
	if err != nil {
		log.Fatal(err)
	}
	err = p.Check(context.Background(), "fs_delete_file", nil)
	fmt.Println("fs_delete_file may run:", err == nil)
	// Output:
	// policy: deny pattern "delete_[*": syntax error in pattern
	// true
	// fs_delete_file may run: true
}

// AskUnlessReadOnly spares the user a question about a tool that claims
// to be read-only, and asks about every other, a tool that claims nothing
// included. Here the user approves what they are asked.
func ExampleAskUnlessReadOnly() {
	p, err := policy.New(policy.Config{
		Approver: policy.AskUnlessReadOnly(func(_ context.Context, c policy.Call) (policy.Decision, error) {
			fmt.Printf("asking: run %s of server %s (may destroy data: %v)?\n", c.Tool, c.Server, c.Annotations.Destructive())
			return policy.Approve(), nil
		}),
	})
	if err != nil {
		log.Fatal(err)
	}
	set := p.Gate(fsTools())
	for _, d := range set.Definitions {
		res, err := set.Handler.Call(context.Background(), d.Name, json.RawMessage(`{"path": "notes.txt"}`))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.Text())
	}
	// Output:
	// ran fs_read_file
	// asking: run write_file of server fs (may destroy data: true)?
	// ran fs_write_file
	// asking: run delete_file of server fs (may destroy data: true)?
	// ran fs_delete_file
}

// Refuse is an approver's no. The model reads that the user declined,
// then the reason, if there is one: a reason lets it change course
// rather than ask again.
func ExampleRefuse() {
	p, err := policy.New(policy.Config{
		Approver: func(_ context.Context, c policy.Call) (policy.Decision, error) {
			if c.Tool == "delete_file" {
				return policy.Refuse("move the file to trash/ instead"), nil
			}
			return policy.Refuse(""), nil
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	set := p.Gate(fsTools())
	for _, name := range []string{"fs_write_file", "fs_delete_file"} {
		_, err := set.Handler.Call(context.Background(), name, json.RawMessage(`{"path": "notes.txt"}`))
		var refused *tool.RefusedError
		if errors.As(err, &refused) {
			fmt.Println("the model reads:", refused.Message)
		}
	}
	// Output:
	// the model reads: the user declined to run "fs_write_file"
	// the model reads: the user declined to run "fs_delete_file": move the file to trash/ instead
}
