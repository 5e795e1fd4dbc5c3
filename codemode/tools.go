package codemode

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpbridge/mcpbridge/tool"
)

// The tools a model gets in code mode.
const (
	runName      = "run_code"
	describeName = "describe_tools"
)

type (
	runArgs struct {
		Code string `json:"code"`
	}
	describeArgs struct {
		Query string `json:"query"`
	}
)

// Offer returns the tools a model programs with: run_code, which runs a
// script (see [Runtime.Run]) and answers with a line that sums up its
// calls, what it returned and what it printed; and describe_tools, which
// answers the TypeScript declarations of the tools a query names or
// matches. run_code's description names the servers and how to learn
// their tools, not the tools themselves, so what a model is sent on every
// turn does not grow with the catalog. The Set's resources are passed on.
//
// A Runtime is thereby a [tool.Source] of a fixed set, for an agent's
// Tools (package agent's code mode makes one on each run instead, over the
// tools the policy lets through).
func (r *Runtime) Offer(context.Context) (tool.Set, error) {
	run, err := tool.Func(runName, r.runDescription(), func(ctx context.Context, in runArgs) (string, error) {
		return r.answer(ctx, in.Code)
	})
	if err != nil {
		return tool.Set{}, err
	}
	describe, err := tool.Func(describeName, "TypeScript declarations of tools matching query (words, server, server.tool).", func(_ context.Context, in describeArgs) (string, error) {
		return r.api.Describe(in.Query), nil
	})
	if err != nil {
		return tool.Set{}, err
	}
	set := tool.Join(run, describe)
	for i, d := range set.Definitions {
		set.Definitions[i].InputSchema = terse(d.InputSchema)
	}
	set.Servers = r.set.Servers
	return set, nil
}

// terse leaves out of a schema, as the model is sent it, "additionalProperties":
// false: it tells the model nothing, and costs bytes on every turn. The
// arguments are still checked against the whole schema.
func terse(schema []byte) []byte {
	return bytes.Replace(schema, []byte(`,"additionalProperties":false`), nil, 1)
}

// runDescription is run_code's description.
func (r *Runtime) runDescription() string {
	return "Run an async JavaScript function body; its only I/O: await tools.server.tool(args), " +
		"giving the tool's structured result or text, throwing its error. " +
		"Promise.all for parallel calls. Return the answer; console.log shows too. " +
		"See " + describeName + " for declarations. Servers: " + r.api.Servers() + "."
}

// answer runs a script for the model: its summary line, what it returned
// and what it printed, or, when it threw or was stopped, a failure that
// says so with the same.
func (r *Runtime) answer(ctx context.Context, code string) (string, error) {
	out, err := r.Run(ctx, code)
	var b strings.Builder
	b.WriteString(out.Summary + ".\n")
	if err == nil {
		if out.Value != nil {
			fmt.Fprintf(&b, "Returned: %s\n", out.Value)
		} else {
			b.WriteString("Returned nothing.\n")
		}
	}
	if out.Console != "" {
		b.WriteString("Console:\n" + out.Console)
	}
	if err == nil {
		return strings.TrimSpace(b.String()), nil
	}
	if ctx.Err() != nil && !errors.As(err, new(*BudgetError)) {
		return "", err
	}
	return "", &tool.FailedError{Name: runName, Message: err.Error() + "\n" + strings.TrimSpace(b.String()), Err: err}
}
