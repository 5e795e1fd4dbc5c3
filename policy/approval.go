package policy

import (
	"context"
	"encoding/json"

	"github.com/mcpbridge/mcpbridge/tool"
)

// A Call is a tool call as an [Approver] sees it: how it was called, what the
// policy knows of the tool (from the definition of the Set it gates), and
// the arguments. For a name no definition has, Tool is the alias's tool
// part or the called name, and the rest is empty: in particular
// Annotations is nil, which claims nothing (so the tool is not read-only).
type Call struct {
	// Name is the name the call was made by.
	Name string
	// Tool is the tool's own name, as its server (or local definition)
	// declares it.
	Tool string
	// Server is the name of the MCP server that serves the tool, or "" for
	// a local tool.
	Server string
	// Namespaced is the name the model is offered when it is not Tool
	// (prefixed with the server's, or rewritten to a vendor's rules), else
	// "".
	Namespaced string
	// Annotations are the tool's behaviour hints, or nil when it declared
	// none.
	Annotations *tool.Annotations
	// Args is the arguments object as the model wrote it (nil or empty when
	// it wrote none).
	Args json.RawMessage
}

// A Decision is an [Approver]'s answer. The zero Decision refuses, so that
// an approver that forgets to fill it in fails safe.
type Decision struct {
	// Approved lets the call run.
	Approved bool
	// Reason, for a refusal, is told to the model after
	// `the user declined to run "<name>": `; it may be empty.
	Reason string
}

// Approve returns the Decision that lets a call run.
func Approve() Decision { return Decision{Approved: true} }

// Refuse returns the Decision that refuses a call, with a reason for the
// model (or "").
func Refuse(reason string) Decision { return Decision{Reason: reason} }

// An Approver is consulted before each call that the patterns allowed, and
// decides whether it runs: typically it asks a user, in the spirit of the MCP
// specification's "a human in the loop". An error (the user went away, the
// context ended) is returned to the caller, wrapped, and the call does not
// run. An Approver must be safe for concurrent use: a model's parallel calls
// are judged at once.
type Approver func(ctx context.Context, call Call) (Decision, error)

// AskUnlessReadOnly returns an Approver that approves, without asking, the
// tools annotated read-only, and asks ask about everything else: tools that
// may write or destroy, and tools with no annotations at all, which claim
// nothing and so are not trusted to be harmless. ask sees the call's
// annotations, so it can word its question by
// [tool.Annotations.Destructive] or [tool.Annotations.OpenWorld].
//
// Annotations come from the tool's author; the policy trusts a read-only
// claim only to spare the user a question, never to widen what the patterns
// allow. AskUnlessReadOnly panics if ask is nil, a mistake better found at
// start than at the first call.
func AskUnlessReadOnly(ask Approver) Approver {
	if ask == nil {
		panic("policy: AskUnlessReadOnly: nil ask")
	}
	return func(ctx context.Context, call Call) (Decision, error) {
		if call.Annotations.ReadOnly() {
			return Approve(), nil
		}
		return ask(ctx, call)
	}
}
