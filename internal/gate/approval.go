package gate

import (
	"context"
	"encoding/json"

	"github.com/mcpbridge/mcpbridge/tool"
)

// A Call is a call as the [Approver] sees it. Its fields are those of
// policy.Call, in the same order, so that package policy converts one to
// the other.
type Call struct {
	Name        string
	Tool        string
	Server      string
	Namespaced  string
	Annotations *tool.Annotations
	Args        json.RawMessage
}

// A Decision is the Approver's answer, as policy.Decision (the zero one
// refuses).
type Decision struct {
	Approved bool
	Reason   string
}

// An Approver is asked about each call the patterns let through.
type Approver func(ctx context.Context, call Call) (Decision, error)
