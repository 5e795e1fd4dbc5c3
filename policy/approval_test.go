package policy_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcpbridge/mcpbridge/policy"
	"github.com/mcpbridge/mcpbridge/tool"
)

// Proves that the approver is given the call's names, arguments and
// annotations, that its refusal reaches the model in plain words without
// running the tool, and that it is not asked about calls the patterns refuse.
func TestApprover(t *testing.T) {
	var seen []policy.Call
	decision := policy.Refuse("")
	p := mustNew(t, policy.Config{
		Deny:     []string{"write_*"},
		Resolver: hostNames(),
		Approver: func(_ context.Context, c policy.Call) (policy.Decision, error) {
			seen = append(seen, c)
			return decision, nil
		},
	})
	next := &counting{}
	h := p.Handler(next)
	ctx := context.Background()
	args := json.RawMessage(`{"path": "/tmp/x"}`)

	_, err := h.Call(ctx, "fs_delete_file", args)
	var r *tool.RefusedError
	if !errors.As(err, &r) || r.Message != `the user declined to run "fs_delete_file"` {
		t.Fatalf("declined: %v", err)
	}
	if len(seen) != 1 {
		t.Fatalf("approver asked %d times, want 1", len(seen))
	}
	c := seen[0]
	if c.Name != "fs_delete_file" || c.Tool != "delete_file" || c.Server != "fs" || c.Namespaced != "fs_delete_file" ||
		c.Annotations != destructive || string(c.Args) != string(args) {
		t.Errorf("approver saw %+v", c)
	}

	decision = policy.Refuse("not on a Friday")
	_, err = h.Call(ctx, "delete_file", args)
	if !errors.As(err, &r) || r.Message != `the user declined to run "delete_file": not on a Friday` {
		t.Fatalf("declined with a reason: %v", err)
	}
	decision = policy.Decision{}
	if _, err = h.Call(ctx, "delete_file", nil); !errors.As(err, &r) {
		t.Fatalf("the zero Decision must refuse: %v", err)
	}
	if len(next.calls) != 0 {
		t.Fatalf("the wrapped handler ran %q after a refusal", next.calls)
	}

	decision = policy.Approve()
	if res, err := h.Call(ctx, "mcp__fs__delete_file", args); err != nil || res.Text() != "ran mcp__fs__delete_file" {
		t.Fatalf("approved: %q, %v", res.Text(), err)
	}

	// Patterns come first: a denied call is never shown to the approver.
	seen = nil
	if _, err = h.Call(ctx, "fs_write_file", nil); !errors.As(err, &r) || len(seen) != 0 {
		t.Fatalf("denied call: %v, approver asked %d times", err, len(seen))
	}

	// An unknown tool is shown by its alias's tool part, with no annotations.
	if _, err = h.Call(ctx, "mcp__elsewhere__rm", nil); err != nil || len(seen) != 1 {
		t.Fatalf("unknown alias: %v", err)
	}
	if c := seen[0]; c.Tool != "rm" || c.Server != "" || c.Annotations != nil {
		t.Errorf("unknown alias: approver saw %+v", c)
	}
}

// Proves that an approver's error is returned (identity kept) and the tool
// does not run.
func TestApproverError(t *testing.T) {
	gone := errors.New("the user closed the window")
	for _, cause := range []error{gone, context.Canceled} {
		p := mustNew(t, policy.Config{Approver: func(context.Context, policy.Call) (policy.Decision, error) {
			return policy.Approve(), cause
		}})
		next := &counting{}
		_, err := p.Handler(next).Call(context.Background(), "delete_file", nil)
		var r *tool.RefusedError
		if !errors.Is(err, cause) || errors.As(err, &r) {
			t.Errorf("got %v, want %v unwrapped from a non-refusal", err, cause)
		}
		if len(next.calls) != 0 {
			t.Error("the tool ran despite the approver's error")
		}
		if err := p.Check(context.Background(), "delete_file", nil); !errors.Is(err, cause) {
			t.Errorf("Check: got %v", err)
		}
	}
}

// Proves that AskUnlessReadOnly asks about destructive, write and unannotated
// or unknown tools, and approves read-only ones without asking.
func TestAskUnlessReadOnly(t *testing.T) {
	f := false
	notReadOnly := &tool.Annotations{DestructiveHint: &f}
	for _, tc := range []struct {
		call  string
		names policy.Names
		known bool
		asks  bool
	}{
		{"read_file", policy.Names{Tool: "read_file", Annotations: readOnly}, true, false},
		{"delete_file", policy.Names{Tool: "delete_file", Annotations: destructive}, true, true},
		{"append", policy.Names{Tool: "append", Annotations: notReadOnly}, true, true}, // not destructive, still writes
		{"mystery", policy.Names{Tool: "mystery"}, true, true},                         // no annotations claim nothing
		{"unknown", policy.Names{}, false, true},                                       // nothing known at all
	} {
		asked := false
		p := mustNew(t, policy.Config{
			Resolver: func(string) (policy.Names, bool) { return tc.names, tc.known },
			Approver: policy.AskUnlessReadOnly(func(_ context.Context, c policy.Call) (policy.Decision, error) {
				asked = true
				if c.Annotations != tc.names.Annotations {
					t.Errorf("%s: ask saw annotations %+v", tc.call, c.Annotations)
				}
				return policy.Refuse("no"), nil
			}),
		})
		err := p.Check(context.Background(), tc.call, nil)
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
