package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/tool"
)

// A Mode is how the model reaches the tools of a run ([Config.Mode]).
type Mode string

// The modes. The zero Mode sends the definitions whole unless they pass
// [Config.ToolTokenBudget], and has the model search and load them then.
// Code mode is [Config.Code]'s.
const (
	// ModeDirect sends every definition on every turn, whatever its size.
	ModeDirect Mode = "direct"
	// ModeDisclosure always has the model search the catalog
	// (find_tools) and load what it needs (load_tools). With a Model whose
	// vendor defers tools ([llm.ToolDeferrer], such as llm/anthropic or
	// llm/openai with Options.DeferTools), the catalog goes to the vendor as deferred
	// tools instead, the policy applied as to any offer, and find_tools'
	// answer loads every tool it lists the vendor's way: there is no
	// load_tools, and a found tool is called on the next step.
	ModeDisclosure Mode = "disclosure"
)

// checkMode checks the mode and, for code mode, its configuration: Code
// makes the tools of an empty Set, so that a budget it refuses fails New,
// not the first run.
func checkMode(cfg *Config) error {
	switch cfg.Mode {
	case "", ModeDirect, ModeDisclosure:
	default:
		return fmt.Errorf("agent: Mode %q: want %q, %q or none", string(cfg.Mode), ModeDirect, ModeDisclosure)
	}
	if cfg.Code == nil {
		return nil
	}
	if cfg.Mode != "" {
		return fmt.Errorf("agent: Mode %q and Code: code mode is a mode of its own; leave Mode empty", string(cfg.Mode))
	}
	if _, err := cfg.Code.Tools(context.Background(), tool.Set{}); err != nil {
		return fmt.Errorf("agent: Code: %w", err)
	}
	return nil
}

// disclosed reports whether a catalog of tokens is searched and loaded
// rather than sent.
func (a *Agent) disclosed(tokens int) bool {
	switch {
	case a.cfg.Code != nil:
		return false
	case a.cfg.Mode == ModeDisclosure:
		return true
	case a.cfg.Mode == "":
		return a.cfg.ToolTokenBudget > 0 && tokens > a.cfg.ToolTokenBudget
	}
	return false
}

// codeTools makes the code tools of a run over rest, the run's tools but
// the agent's own, served by handler, the run's gated handler: each call
// a script makes is judged and served as the model's own would be, shown
// to OnToolCall, in a span of its own.
func (a *Agent) codeTools(ctx context.Context, rest []tool.Definition, handler tool.Handler) (tool.Set, error) {
	return a.cfg.Code.Tools(ctx, tool.Set{Definitions: rest, Handler: a.scriptCalls(handler)})
}

// scriptKey keys, in a call's context, the model's call it serves: what a
// script's calls are numbered under.
type scriptKey struct{}

// script is a model's call as a script's calls know it: its ID, and the
// count of the calls made under it.
type script struct {
	id string
	n  atomic.Int64
}

// scriptCalls serves through next the calls a script makes, as the agent's
// own: each has the ID of the model's call that ran the script, a slash
// and its number.
func (a *Agent) scriptCalls(next tool.Handler) tool.Handler {
	return tool.HandlerFunc(func(ctx context.Context, name string, args json.RawMessage) (tool.Reply, error) {
		c := llm.ToolCall{Name: name, Arguments: args}
		if s, ok := ctx.Value(scriptKey{}).(*script); ok {
			c.ID = s.id + "/" + strconv.FormatInt(s.n.Add(1), 10)
		}
		return a.serve(ctx, next, c)
	})
}
