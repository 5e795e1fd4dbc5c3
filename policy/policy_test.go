package policy_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcpbridge/mcpbridge/policy"
	"github.com/mcpbridge/mcpbridge/tool"
)

// Gate keeps the denied tools out of the offer and judges each call under
// every name the Set's definitions give it, before the Set's handler runs;
// the approver sees what the definition says of the tool; a nil Policy
// lets everything through; a bad pattern is refused by New.
func TestGate(t *testing.T) {
	var seen []policy.Call
	p, err := policy.New(policy.Config{
		Deny: []string{"delete_*"},
		Approver: func(_ context.Context, c policy.Call) (policy.Decision, error) {
			seen = append(seen, c)
			return policy.Approve(), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	set := p.Gate(fsTools())
	if len(set.Definitions) != 2 || set.Definitions[0].Name != "fs_read_file" || set.Definitions[1].Name != "fs_write_file" {
		t.Fatalf("offered %v; want fs_delete_file left out", set.Definitions)
	}
	if len(fsTools().Definitions) != 3 {
		t.Fatal("Gate changed the Set it was given")
	}
	for _, name := range []string{"fs_delete_file", "mcp__fs__delete_file", "delete_file"} {
		var refused *tool.RefusedError
		if _, err := set.Handler.Call(context.Background(), name, nil); !errors.As(err, &refused) {
			t.Errorf("%s: %v; want a refusal", name, err)
		}
	}
	if len(seen) != 0 {
		t.Fatalf("the approver was asked about a denied call: %+v", seen)
	}
	args := json.RawMessage(`{"path": "a"}`)
	if res, err := set.Handler.Call(context.Background(), "fs_write_file", args); err != nil || res.Text() != "ran fs_write_file" {
		t.Fatalf("fs_write_file: %q, %v", res.Text(), err)
	}
	want := policy.Call{Name: "fs_write_file", Tool: "write_file", Server: "fs", Namespaced: "fs_write_file", Args: args}
	if len(seen) != 1 || seen[0].Name != want.Name || seen[0].Tool != want.Tool || seen[0].Server != want.Server ||
		seen[0].Namespaced != want.Namespaced || string(seen[0].Args) != string(want.Args) {
		t.Fatalf("the approver saw %+v, want %+v", seen, want)
	}

	var none *policy.Policy
	if got := none.Gate(fsTools()); len(got.Definitions) != 3 {
		t.Fatalf("a nil Policy gated %v", got.Definitions)
	}
	if _, err := policy.New(policy.Config{Allow: []string{"[a-"}}); err == nil {
		t.Fatal("a bad pattern was accepted")
	}
	// A Set without a handler serves nothing behind the gate.
	bare := p.Gate(tool.Set{Definitions: fsTools().Definitions})
	if _, err := bare.Handler.Call(context.Background(), "fs_read_file", nil); !errors.Is(err, tool.ErrUnserved) {
		t.Fatalf("no handler: %v", err)
	}
}

// Proves that AskUnlessReadOnly asks about destructive, write and unannotated
// or unknown tools, and approves read-only ones without asking.
func TestAskUnlessReadOnly(t *testing.T) {
	f := false
	readOnly, destructive, notReadOnly := &tool.Annotations{ReadOnlyHint: true}, &tool.Annotations{}, &tool.Annotations{DestructiveHint: &f}
	defs := []tool.Definition{
		{Name: "read_file", Annotations: readOnly},
		{Name: "delete_file", Annotations: destructive},
		{Name: "append", Annotations: notReadOnly}, // not destructive, still writes
		{Name: "mystery"}, // no annotations claim nothing
	}
	for _, tc := range []struct {
		call        string
		annotations *tool.Annotations
		asks        bool
	}{
		{"read_file", readOnly, false},
		{"delete_file", destructive, true},
		{"append", notReadOnly, true},
		{"mystery", nil, true},
		{"unknown", nil, true}, // nothing known at all
	} {
		asked := false
		p, err := policy.New(policy.Config{
			Approver: policy.AskUnlessReadOnly(func(_ context.Context, c policy.Call) (policy.Decision, error) {
				asked = true
				if c.Annotations != tc.annotations {
					t.Errorf("%s: ask saw annotations %+v", tc.call, c.Annotations)
				}
				return policy.Refuse("no"), nil
			}),
		})
		if err != nil {
			t.Fatal(err)
		}
		run := tool.HandlerFunc(func(context.Context, string, json.RawMessage) (tool.Reply, error) { return tool.Text("ran"), nil })
		_, err = p.Gate(tool.Set{Definitions: defs, Handler: run}).Handler.Call(context.Background(), tc.call, nil)
		if asked != tc.asks {
			t.Errorf("%s: asked = %v, want %v", tc.call, asked, tc.asks)
		}
		if (err == nil) != !tc.asks {
			t.Errorf("%s: err = %v", tc.call, err)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("AskUnlessReadOnly(nil) did not panic")
		}
	}()
	policy.AskUnlessReadOnly(nil)
}
