package gate_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/gate"
	"github.com/mcpbridge/mcpbridge/tool"
)

// Proves that the approver is given the call's names, arguments and
// annotations, that its refusal reaches the model in plain words without
// running the tool, and that it is not asked about calls the patterns refuse.
func TestApprover(t *testing.T) {
	var seen []gate.Call
	approved, reason := false, ""
	p := mustNew(t, gate.Config{
		Deny:     []string{"write_*"},
		Resolver: hostNames(),
		Approver: func(_ context.Context, c gate.Call) (bool, string, error) {
			seen = append(seen, c)
			return approved, reason, nil
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

	reason = "not on a Friday"
	_, err = h.Call(ctx, "delete_file", args)
	if !errors.As(err, &r) || r.Message != `the user declined to run "delete_file": not on a Friday` {
		t.Fatalf("declined with a reason: %v", err)
	}
	reason = ""
	if _, err = h.Call(ctx, "delete_file", nil); !errors.As(err, &r) {
		t.Fatalf("not approved must refuse: %v", err)
	}
	if len(next.calls) != 0 {
		t.Fatalf("the wrapped handler ran %q after a refusal", next.calls)
	}

	approved = true
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
		p := mustNew(t, gate.Config{Approver: func(context.Context, gate.Call) (bool, string, error) {
			return true, "", cause
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
