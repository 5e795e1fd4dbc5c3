package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/internal/gate"
	"github.com/mcpbridge/mcpbridge/internal/handle"
	"github.com/mcpbridge/mcpbridge/internal/modelio"
	"github.com/mcpbridge/mcpbridge/internal/names"
	"github.com/mcpbridge/mcpbridge/internal/near"
	"github.com/mcpbridge/mcpbridge/internal/telemetry"
	"github.com/mcpbridge/mcpbridge/internal/toolschema"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/policy"
	"github.com/mcpbridge/mcpbridge/schema"
	"github.com/mcpbridge/mcpbridge/tool"
)

// Defaults of [Config].
const (
	defaultMaxSteps        = 16
	defaultResultBudget    = 20000
	defaultToolTokenBudget = 12000
)

// ErrStepLimit is returned by Run, with the conversation so far, when the
// model is still calling tools after the step limit.
var ErrStepLimit = errors.New("agent: step limit reached")

// Config builds an [Agent].
type Config struct {
	// Model answers each turn. Required.
	Model llm.Model
	// System is the agent's own prompt.
	System string
	// Tools are where the model's tools come from: local tools
	// ([tool.Func], [tool.Join]), an MCP server (an *mcptool.Provider), many servers (a
	// *toolset.Toolset), a fixed [tool.Set], any [tool.Source]. Run takes
	// one Set of each as it starts, so the tools never change while a run
	// goes on and a source's changes show in the next run. A name two
	// sources offer is served by the first.
	//
	// What the Sets' servers bring besides ([tool.Set] Servers) comes
	// with them, each under the server's name (the first source's, for a
	// name two sources have): their instructions follow System in the
	// system prompt (a text over 8192 characters cut, with a
	// warning), then their skills (the MCP Skills extension), one line
	// each, which the model takes up with load_skill and whose files it
	// reads with read_skill_file, every read verified against the server's
	// listing; a skill costs its line until it is used. To keep a server's
	// text from the model, give a Source that leaves it out of the Set.
	Tools []tool.Source
	// Policy, if set, judges every call before it runs, under every name
	// the tool goes by (see [policy.Policy.Gate]), and keeps the tools it
	// denies out of what the model is offered.
	Policy *policy.Policy
	// MaxSteps bounds the model turns of one Run (default 16).
	// It cannot be lifted: a negative one is refused, since what servers
	// send could otherwise keep a model calling tools for ever.
	MaxSteps int
	// ResultBudget is how many characters of a tool result's text the model
	// reads; the rest is cut with a note (default 20000;
	// negative: no limit). Images are kept.
	ResultBudget int
	// ToolTokenBudget is the estimated size, in tokens, above which the tool
	// definitions are not all sent and the model searches and loads tools
	// instead (default 12000; negative: always send all).
	ToolTokenBudget int
	// Vendor is the model vendor whose rules the local tools' input
	// schemas (those of [tool.Func], the agent's own) are lowered for
	// ([schema.Lower]), as a toolset lowers its catalog: give both the same
	// vendor. For OpenAI a tool may then be sent strict, and the null the
	// model sends for an optional argument is dropped before the tool
	// checks its arguments. Empty: sent as they are.
	Vendor schema.Vendor
	// Mode is how the model reaches the tools: sent whole, or searched
	// and loaded (see [Mode]). The zero Mode chooses by ToolTokenBudget.
	Mode Mode
	// Code, if set, puts the agent in code mode, Mode left empty: the
	// model is offered, in place of the catalog, the tools Code's method
	// Tools(ctx, tools) (tool.Set, error) makes of the run's (those the
	// policy lets through, the agent's own aside, served through its
	// gates). New calls it once on an empty Set, to check it. Package
	// codemode's Config is one:
	// run_code runs JavaScript in which every tool is an async function,
	// tools.<server>.<tool>(args), and describe_tools answers their
	// TypeScript declarations. A script's calls are the agent's calls:
	// each goes through the same gates as the model's own (the policy, its
	// approver, the argument check), is shown to OnToolCall, and runs in an
	// execute_tool span within run_code's; what the script gives back is
	// run_code's result, within the result budget. The skill and resource
	// tools stay direct. Code is kept out of agent itself so that a
	// program without code mode builds no JavaScript interpreter.
	Code interface {
		Tools(ctx context.Context, tools tool.Set) (tool.Set, error)
	}
	// Logger receives warnings (a tool name two sources offer, instructions
	// cut) and debug lines. Nil means slog.Default(), told only warnings
	// and errors.
	Logger *slog.Logger
	// OnToolCall, if set, is called as each call the model makes starts,
	// however it is served: a tool of a source, or one of the agent's own
	// (load_skill and read_skill_file for skills, read_resource for
	// resources, find_tools and load_tools under progressive disclosure,
	// run_code and describe_tools in code mode); and as each call a
	// script of code mode makes starts, with the ID of its run_code call,
	// a slash and its number in the script (7/1, 7/2). The function
	// it returns, if not nil, is called when the call is done, with the
	// result as the tool gave it (before it is fitted to the model) or the
	// error (a refusal by Policy among them). Both run on the goroutine that
	// runs the call, so the parallel calls of one turn may run them
	// concurrently.
	OnToolCall func(call llm.ToolCall) (done func(res tool.Reply, err error))
	// Elicit, if set, asks the user what a call of a run needs to know:
	// the questions an MCP server asks during the call (its provider must
	// declare elicitation, with an mcptool.Options.Elicitor, which
	// then answers only what comes outside a run), and a local tool's
	// [tool.Elicit]. The calls of a turn run concurrently, so it may be
	// asked by several at once.
	Elicit tool.Elicitor
	// TracerProvider receives the agent's spans, by the GenAI conventions:
	// a run is an invoke_agent span, each model turn a chat span with the
	// model's name and the tokens it used, each tool call an execute_tool
	// span in which the call runs (an MCP tool's client span, a policy's
	// refusal), so that one trace shows the whole run. A Model with the
	// methods Name() string and Vendor() string (the vendor packages'
	// models) names the model and its API (gen_ai.provider.name). Nil means
	// OpenTelemetry's global provider.
	TracerProvider trace.TracerProvider
	// MeterProvider receives the count of calls the policy refused. Nil
	// means OpenTelemetry's global provider.
	MeterProvider metric.MeterProvider
	// CallContent records each tool call's arguments and result on its
	// execute_tool span, cut and scrubbed as errors are; without it
	// neither is recorded.
	CallContent bool
}

// An Agent runs the tool loop. It is safe for concurrent use: each Run
// keeps its own conversation.
type Agent struct {
	cfg     Config // with the defaults filled in
	tel     *loopTelemetry
	dropped sync.Map                    // the tools left out for a name another has, said once
	warned  sync.Map                    // the servers' instructions cut and skills left out, said once
	index   atomic.Pointer[names.Index] // the last catalog searched
}

// New checks the configuration and composes the system prompt.
func New(cfg Config) (*Agent, error) {
	if cfg.Model == nil {
		return nil, errors.New("agent: no model")
	}
	if cfg.Vendor != "" {
		if _, err := schema.ParseVendor(string(cfg.Vendor)); err != nil {
			return nil, fmt.Errorf("agent: Vendor: %w", err)
		}
	}
	if cfg.MaxSteps < 0 {
		return nil, fmt.Errorf("agent: MaxSteps %d is negative: the step limit cannot be lifted", cfg.MaxSteps)
	}
	cfg.MaxSteps = cmp.Or(cfg.MaxSteps, defaultMaxSteps)
	cfg.ResultBudget = cmp.Or(cfg.ResultBudget, defaultResultBudget)
	cfg.ToolTokenBudget = cmp.Or(cfg.ToolTokenBudget, defaultToolTokenBudget)
	cfg.Logger = telemetry.Logger(cfg.Logger)
	if err := checkMode(&cfg); err != nil {
		return nil, err
	}
	for i, src := range cfg.Tools {
		if src == nil {
			return nil, fmt.Errorf("agent: Tools[%d] is nil", i)
		}
	}
	return &Agent{cfg: cfg, tel: newLoopTelemetry(&cfg)}, nil
}

// A view is the tools of one run: what each source offered as the run
// started, gated by the policy, and under progressive disclosure the
// catalog the model searches.
type view struct {
	system  string            // the agent's prompt, the servers' instructions and skills
	defs    []tool.Definition // every tool the model may call, skill tools first
	handler tool.Handler
	catalog *catalog          // nil unless the definitions exceed the token budget
	code    []tool.Definition // in code mode: run_code, describe_tools and the pinned tools
	pinned  []tool.Definition // offered even under the catalog: the skill tools
	loaded  loadedSet         // the tools the run loaded from the catalog
	tokens  int               // estimateTokens(defs)
}

// leftOut says, once for the agent, that d is left out for first, which
// has its name: a local tool that takes a server tool's name, two servers
// offering alike, which the caller should know of.
func (a *Agent) leftOut(first, d tool.Definition) {
	key := d.Name + "\x00" + d.Origin.Server + "\x00" + d.Origin.Tool
	if _, said := a.dropped.LoadOrStore(key, true); said {
		return
	}
	a.cfg.Logger.Warn("agent: a tool name offered twice; the first serves it", "tool", d.Name,
		"served_by", whose(first), "left_out", whose(d))
}

// dropNullOptionals serves the local tools lowered strict through h, each
// call's arguments rid of the nulls the model sent for optional ones (see
// internal/toolschema.DropNullOptionals): the tool checks them against its own schema.
func dropNullOptionals(own map[string]json.RawMessage, h tool.Handler) tool.Handler {
	return tool.HandlerFunc(func(ctx context.Context, name string, args json.RawMessage) (tool.Reply, error) {
		if s, ok := own[name]; ok && len(args) > 0 {
			dropped, err := toolschema.DropNullOptionals(s, args)
			if err != nil {
				return tool.Reply{}, &tool.RefusedError{Name: name, Message: "the arguments must be a JSON object"}
			}
			args = dropped
		}
		return h.Call(ctx, name, args)
	})
}

// whose says whose tool d is.
func whose(d tool.Definition) string {
	if d.Origin.Server == "" {
		return "a local tool"
	}
	return fmt.Sprintf("server %q's tool %q", d.Origin.Server, d.Origin.Tool)
}

// view takes one Set of every source and joins them: the agent's own tools
// first (the skill tools, then read_resource when a server has resources),
// then the sources in order, a name offered twice served by the first.
func (a *Agent) view(ctx context.Context) (*view, error) {
	var sets []tool.Set
	servers := map[string]tool.Server{}
	for i, src := range a.cfg.Tools {
		set, err := src.Offer(ctx)
		if err != nil {
			return nil, fmt.Errorf("agent: the tools of source %d (%T): %w", i, src, err)
		}
		sets = append(sets, set)
		for name, srv := range set.Servers {
			if _, ok := servers[name]; !ok {
				servers[name] = srv
			}
		}
	}
	system, own, err := a.brought(servers)
	if err != nil {
		return nil, err
	}
	sets = append(own, sets...)
	v := &view{system: system}
	served := map[string]tool.Definition{}
	strict := map[string]json.RawMessage{} // local tools lowered strict: their own schemas
	var handlers []tool.Handler
	for _, set := range sets {
		for _, d := range set.Definitions {
			if first, ok := served[d.Name]; ok {
				a.leftOut(first, d)
				continue
			}
			served[d.Name] = d
			if d.Origin.Server == "" && !d.Strict && a.cfg.Vendor != "" {
				low, err := schema.Lower(a.cfg.Vendor, d.InputSchema)
				if err != nil {
					return nil, fmt.Errorf("agent: local tool %q: %w", d.Name, err)
				}
				if low.Strict {
					strict[d.Name] = d.InputSchema
				}
				d.InputSchema, d.Strict = low.Schema, low.Strict
			}
			v.defs = append(v.defs, d)
		}
		if set.Handler != nil {
			handlers = append(handlers, set.Handler)
		}
	}
	v.handler = tool.Compose(handlers...)
	if len(strict) > 0 {
		v.handler = dropNullOptionals(strict, v.handler)
	}
	if a.cfg.Policy != nil {
		// The gate knows every tool by each of its names, so that a rule
		// holds under the namespaced name and the alias alike.
		g := handle.Core[gate.Policy](a.cfg.Policy).For(v.defs)
		v.defs = slices.DeleteFunc(v.defs, func(d tool.Definition) bool { return !g.Allowed(d.Name) })
		v.handler = a.tel.gated(g, v.handler)
	}
	v.tokens = estimateTokens(v.defs)
	if a.cfg.Code != nil || a.disclosed(v.tokens) {
		// The agent's own tools stay offered: the system prompt and the
		// results' links tell the model to use them.
		pin := map[string]bool{}
		for _, set := range own {
			for _, d := range set.Definitions {
				pin[d.Name] = true
			}
		}
		var rest []tool.Definition
		for _, d := range v.defs {
			if pin[d.Name] {
				v.pinned = append(v.pinned, d)
			} else {
				rest = append(rest, d)
			}
		}
		if a.cfg.Code != nil {
			// run_code and describe_tools are the agent's own: a script's
			// calls are gated one by one.
			code, err := a.codeTools(ctx, rest, v.handler)
			if err != nil {
				return nil, err
			}
			v.code = append(code.Definitions, v.pinned...)
			v.handler = tool.Compose(code.Handler, v.handler)
			return v, nil
		}
		deferrer, ok := a.cfg.Model.(llm.ToolDeferrer)
		v.catalog = newCatalog(a.searchIndex(rest), rest, ok && deferrer.DefersTools())
		// find_tools and load_tools are the agent's own: no policy gates
		// them, and they serve first.
		search, err := v.catalog.tools(&v.loaded)
		if err != nil {
			return nil, err
		}
		v.handler = tool.Compose(search.Handler, v.handler)
	}
	return v, nil
}

// searchIndex returns the index of defs: the last run's, if its catalog
// was the same, so that a catalog is indexed once however many runs search
// it.
func (a *Agent) searchIndex(defs []tool.Definition) *names.Index {
	if x := a.index.Load(); x != nil && x.Same(defs) {
		return x
	}
	x := names.NewIndex(defs)
	a.index.Store(x)
	return x
}

// brought returns what the run's servers bring, by their names
// ([tool.Set.Brought]): the system prompt, the agent's own prompt followed
// by their instructions and their skills, and the tools that take them up.
func (a *Agent) brought(servers map[string]tool.Server) (string, []tool.Set, error) {
	section, own, err := tool.Set{Servers: servers}.Brought(a.warnOnce)
	if err != nil {
		return "", nil, err
	}
	system := a.cfg.System
	if section != "" {
		if system != "" {
			system += "\n\n"
		}
		system += section
	}
	if len(own.Definitions) == 0 {
		return system, nil, nil
	}
	return system, []tool.Set{own}, nil
}

// warnOnce logs a warning the first time the agent meets it.
func (a *Agent) warnOnce(msg string, args ...any) {
	if _, said := a.warned.LoadOrStore(fmt.Sprint(append([]any{msg}, args...)...), true); !said {
		a.cfg.Logger.Warn("agent: "+msg, args...)
	}
}

// A Result is what one Run produced.
type Result struct {
	// Messages is the whole conversation: the messages given, then every
	// message of this run.
	Messages []llm.Message
	// Text is the model's final answer.
	Text string
	// Usage adds up every turn.
	Usage llm.Usage
	// Steps is how many model turns ran.
	Steps int
	// ToolTokens is the estimated size of the tool definitions the model was
	// sent, added up over the turns.
	ToolTokens int
}

// Run goes round the tool loop from messages until the model answers
// without calling a tool, the step limit is reached ([ErrStepLimit], with the
// result so far), an error makes going on pointless, or ctx is done. A model's
// parallel tool calls run concurrently; their results go back in the order of
// the calls.
func (a *Agent) Run(ctx context.Context, messages []llm.Message) (res *Result, err error) {
	ctx, done := a.tel.invoke(ctx)
	res = &Result{Messages: append([]llm.Message(nil), messages...)}
	defer func() { done(res, err) }()
	v, err := a.view(ctx)
	if err != nil {
		return res, err
	}
	for res.Steps < a.cfg.MaxSteps {
		defs, tokens := v.offered()
		res.ToolTokens += tokens
		turn, done := a.tel.chat(ctx)
		resp, err := a.cfg.Model.Generate(turn, llm.Request{System: v.system, Messages: res.Messages, Tools: defs, Deferred: v.deferred()})
		done(resp, err)
		res.Steps++
		if err != nil {
			return res, fmt.Errorf("agent: model turn %d: %w", res.Steps, err)
		}
		res.Usage = addUsage(res.Usage, resp.Usage)
		msg := resp.Message
		msg.Role = llm.RoleAssistant
		res.Messages = append(res.Messages, msg)
		if len(msg.ToolCalls) == 0 {
			res.Text = msg.Text()
			return res, nil
		}
		results, err := a.runCalls(ctx, v, msg.ToolCalls)
		res.Messages = append(res.Messages, results...)
		if err != nil {
			return res, err
		}
	}
	return res, ErrStepLimit
}

// runCalls runs one turn's calls concurrently.
func (a *Agent) runCalls(ctx context.Context, v *view, calls []llm.ToolCall) ([]llm.Message, error) {
	out := make([]llm.Message, len(calls))
	errs := make([]error, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Go(func() {
			out[i], errs[i] = a.runCall(ctx, v, c)
		})
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// runCall runs one call and says what the model reads of it; the error is
// set only when going on is pointless.
func (a *Agent) runCall(ctx context.Context, v *view, c llm.ToolCall) (llm.Message, error) {
	ctx = context.WithValue(a.host(ctx), scriptKey{}, &script{id: c.ID})
	res, err := a.serve(ctx, v.handler, c)
	if err == nil {
		msg := llm.ToolResult(c, a.forModel(res))
		if v.catalog != nil {
			msg.References = v.catalog.references(c.Name, res)
		}
		return msg, nil
	}
	if ctx.Err() != nil {
		return llm.ToolError(c, "cancelled"), fmt.Errorf("agent: tool %q: %w", c.Name, ctx.Err())
	}
	text, fatal := tool.Explain(c.Name, err)
	if errors.Is(err, tool.ErrUnserved) {
		if near := near.Suggest(c.Name, v.names()); near != "" {
			text = untrusted.Text(fmt.Sprintf("There is no tool named %q; did you mean %q? Call only the tools you were given.", c.Name, near))
		}
	}
	a.cfg.Logger.DebugContext(ctx, "tool call failed", "tool", c.Name, "error", err)
	if fatal {
		return llm.ToolError(c, text), fmt.Errorf("agent: tool %q: %w", c.Name, err)
	}
	return llm.ToolError(c, text), nil
}

// serve serves call c through h as the agent's own: shown to OnToolCall,
// in an execute_tool span.
func (a *Agent) serve(ctx context.Context, h tool.Handler, c llm.ToolCall) (tool.Reply, error) {
	var done func(tool.Reply, error)
	if a.cfg.OnToolCall != nil {
		done = a.cfg.OnToolCall(c)
	}
	ctx, executed := a.tel.execute(ctx, c)
	res, err := h.Call(ctx, c.Name, c.Arguments)
	executed(res, err)
	if done != nil {
		done(res, err)
	}
	return res, err
}

// names returns the names of every tool of the run.
func (v *view) names() []string {
	names := make([]string, len(v.defs))
	for i, d := range v.defs {
		names[i] = d.Name
	}
	return names
}

// forModel fits a result to the model: images as text marks for a model
// without vision, text over the budget cut with a note.
func (a *Agent) forModel(res tool.Reply) tool.Reply {
	if !a.cfg.Model.Vision() {
		res.Parts = modelio.TextOnly(res.Parts)
	}
	budget := a.cfg.ResultBudget
	if budget < 0 {
		return res
	}
	out := tool.Reply{Structured: res.Structured, Parts: make([]tool.Part, 0, len(res.Parts))}
	left := budget
	for _, p := range res.Parts {
		t, ok := p.(tool.TextPart)
		if !ok {
			out.Parts = append(out.Parts, p)
			continue
		}
		runes := []rune(t.Text)
		if len(runes) <= left {
			left -= len(runes)
			out.Parts = append(out.Parts, t)
			continue
		}
		cut := len(runes) - left
		text := string(runes[:left])
		left = 0
		out.Parts = append(out.Parts, tool.TextPart{Text: fmt.Sprintf("%s\n[… %d more characters of this result were left out]", text, cut)})
	}
	return out
}

// offered returns the definitions to send this turn and their estimated
// size: all of them, or under progressive disclosure the search and load
// tools and what was loaded.
func (v *view) offered() ([]tool.Definition, int) {
	if v.code != nil {
		return v.code, estimateTokens(v.code)
	}
	if v.catalog == nil {
		return v.defs, v.tokens
	}
	defs := v.catalog.offered(&v.loaded)
	defs = slices.Insert(defs, len(v.catalog.search), v.pinned...)
	tokens := estimateTokens(defs)
	if v.catalog.deferred {
		// What the vendor loaded is in the model's context as well.
		tokens += estimateTokens(v.catalog.loaded(&v.loaded))
	}
	return defs, tokens
}

// deferred returns the tools the vendor holds back until find_tools finds
// them: the catalog, when the vendor loads what find_tools finds.
func (v *view) deferred() []tool.Definition {
	if v.catalog == nil || !v.catalog.deferred {
		return nil
	}
	return v.catalog.defs
}

// estimateTokens estimates how many tokens the definitions cost a model:
// their JSON size over four, the usual rule for English and JSON.
func estimateTokens(defs []tool.Definition) int {
	n := 0
	for _, d := range defs {
		data, _ := json.Marshal(d)
		n += len(data)
	}
	return (n + 3) / 4
}

// loadedSet holds the tools a run loaded through progressive disclosure.
type loadedSet struct {
	mu    sync.Mutex
	names []string
}

func (l *loadedSet) add(names ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, n := range names {
		if !slices.Contains(l.names, n) {
			l.names = append(l.names, n)
		}
	}
}

func (l *loadedSet) snapshot() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.names...)
}

// addUsage returns the sum of two usages, to total a run.
func addUsage(u, v llm.Usage) llm.Usage {
	return llm.Usage{
		InputTokens:           u.InputTokens + v.InputTokens,
		OutputTokens:          u.OutputTokens + v.OutputTokens,
		CachedInputTokens:     u.CachedInputTokens + v.CachedInputTokens,
		CacheWriteInputTokens: u.CacheWriteInputTokens + v.CacheWriteInputTokens,
	}
}
