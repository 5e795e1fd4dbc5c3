package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpbridge/mcpbridge/codemode"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/tool"
)

// A Mode is how the model reaches the tools of a run ([Config.Mode]).
type Mode string

// The modes. The zero Mode sends the definitions whole unless they pass
// [Config.ToolTokenBudget], and has the model search and load them then.
const (
	// ModeDirect sends every definition on every turn, whatever its size.
	ModeDirect Mode = "direct"
	// ModeDisclosure always has the model search the catalog
	// (find_tools) and load what it needs (load_tools). With a Model whose
	// vendor defers tools ([llm.ToolDeferrer], such as llm/anthropic with
	// Options.DeferTools), the catalog goes to the vendor as deferred
	// tools instead, the policy applied as to any offer, and find_tools'
	// answer loads every tool it lists the vendor's way: there is no
	// load_tools, and a found tool is called on the next step.
	ModeDisclosure Mode = "disclosure"
	// ModeCode gives the model two tools instead of the catalog (package
	// codemode): run_code runs JavaScript in which every tool is an async
	// function, tools.<server>.<tool>(args), and describe_tools answers
	// their TypeScript declarations. A script's calls go through the same
	// gates as the model's own (the policy, its approver, the argument
	// check), each in an execute_tool span within run_code's; its return
	// value and console output come back as run_code's result, after a
	// line that sums up its calls, within the result budget. The skill
	// and resource tools stay direct.
	ModeCode Mode = "code"
)

// checkMode checks the mode and, for code mode, its budgets.
func checkMode(cfg *Config) error {
	switch cfg.Mode {
	case "", ModeDirect, ModeDisclosure:
		return nil
	case ModeCode:
		if _, err := codemode.New(tool.Set{}, cfg.Code); err != nil {
			return fmt.Errorf("agent: Code: %w", err)
		}
		return nil
	}
	return fmt.Errorf("agent: Mode %q: want %q, %q, %q or none", string(cfg.Mode), ModeDirect, ModeDisclosure, ModeCode)
}

// disclosed reports whether a catalog of tokens is searched and loaded
// rather than sent.
func (a *Agent) disclosed(tokens int) bool {
	switch a.cfg.Mode {
	case ModeDisclosure:
		return true
	case "":
		return a.cfg.ToolTokenBudget > 0 && tokens > a.cfg.ToolTokenBudget
	}
	return false
}

// codeTools makes the code tools of a run over rest, the run's tools but
// the agent's own, served by handler, the run's gated handler: each call
// a script makes is judged and served as the model's own would be, in a
// span of its own.
func (a *Agent) codeTools(ctx context.Context, rest []tool.Definition, handler tool.Handler) (tool.Set, error) {
	rt, err := codemode.New(tool.Set{Definitions: rest, Handler: a.tel.nested(handler)}, a.cfg.Code)
	if err != nil {
		return tool.Set{}, err
	}
	return rt.Offer(ctx)
}

// nested runs each call of next in an execute_tool span, as the run's
// calls are: a script's calls nest in its run_code span.
func (l *loopTelemetry) nested(next tool.Handler) tool.Handler {
	if l == nil {
		return next
	}
	return tool.HandlerFunc(func(ctx context.Context, name string, args json.RawMessage) (tool.Reply, error) {
		ctx, done := l.execute(ctx, llm.ToolCall{Name: name, Arguments: args})
		res, err := next.Call(ctx, name, args)
		done(res, err)
		return res, err
	})
}
