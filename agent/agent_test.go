package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/mcpbridge/mcpbridge/agent"
	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/modelio"
	"github.com/mcpbridge/mcpbridge/internal/skills"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/policy"
	"github.com/mcpbridge/mcpbridge/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// scripted is a model that answers each turn from a script and records what
// it was sent.
type scripted struct {
	vision bool
	turns  []func(req llm.Request) llm.Message

	mu   sync.Mutex
	seen []llm.Request
}

func (s *scripted) Vision() bool { return s.vision }

func (s *scripted) Generate(_ context.Context, req llm.Request) (*llm.Response, error) {
	s.mu.Lock()
	n := len(s.seen)
	s.seen = append(s.seen, req)
	s.mu.Unlock()
	if n >= len(s.turns) {
		return nil, errors.New("script exhausted")
	}
	return &llm.Response{Message: s.turns[n](req), Usage: llm.Usage{InputTokens: 10, OutputTokens: 2}}, nil
}

func calls(cs ...llm.ToolCall) func(llm.Request) llm.Message {
	return func(llm.Request) llm.Message { return llm.Message{ToolCalls: cs} }
}

func answer(text string) func(llm.Request) llm.Message {
	return func(llm.Request) llm.Message { return llm.Message{Parts: []tool.Part{tool.TextPart{Text: text}}} }
}

func tc(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

// demoProvider connects to the demo server in process, for a test.
func demoProvider(t *testing.T, opts ...mcpclient.Option) *mcpclient.Provider {
	t.Helper()
	p, stop, err := connectDemo(context.Background(), demo.New(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return p
}

// connectDemo serves srv (the demo server, or one made like it) in process
// and connects a provider named "notes" to it; stop closes both ends. A real
// server is mcpclient.FromCommand or mcpclient.FromURL.
func connectDemo(ctx context.Context, srv *mcp.Server, opts ...mcpclient.Option) (p *mcpclient.Provider, stop func(), err error) {
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		return nil, nil, err
	}
	p = mcpclient.FromTransport("notes", ct, opts...)
	if err := p.Connect(ctx); err != nil {
		ss.Close()
		return nil, nil, err
	}
	return p, func() { p.Close(); ss.Close() }, nil
}

// skillsOf is a Set of no tools whose server, named server, brings the
// skills src publishes, as a provider on src would, for a test.
func skillsOf(t *testing.T, server string, src skills.Source) tool.Set {
	t.Helper()
	list, err := skills.New(src).Offer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tool.Set{Servers: map[string]tool.Server{server: {Skills: list}}}
}

// firstRequest returns what a run of cfg sends its model first, the model
// answering at once.
func firstRequest(t *testing.T, cfg agent.Config) llm.Request {
	t.Helper()
	model := &scripted{turns: []func(llm.Request) llm.Message{answer("ok")}}
	cfg.Model = model
	a, err := agent.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(context.Background(), []llm.Message{llm.UserText("x")}); err != nil {
		t.Fatal(err)
	}
	return model.seen[0]
}

// systemOf returns the system prompt a run of cfg sends.
func systemOf(t *testing.T, cfg agent.Config) string { return firstRequest(t, cfg).System }

// toolResult finds the tool message answering the call id.
func toolResult(t *testing.T, msgs []llm.Message, id string) llm.Message {
	t.Helper()
	for _, m := range msgs {
		if m.Role == llm.RoleTool && m.ToolCallID == id {
			return m
		}
	}
	t.Fatalf("no result for call %s", id)
	return llm.Message{}
}

// hasImages reports whether m holds an image.
func hasImages(m llm.Message) bool { return (tool.Reply{Parts: m.Parts}).HasImages() }

func TestLoopWithMCPAndLocalTools(t *testing.T) {
	notes := demoProvider(t)
	// A local tool with the name of a server tool is tried first.
	shadow, _ := tool.Func("list_notes", "local list", func(context.Context, struct{}) (string, error) {
		return "local list_notes", nil
	})
	model := &scripted{turns: []func(llm.Request) llm.Message{
		calls(tc("1", "add_note", `{"title":"milk","body":"buy milk"}`)),
		calls(tc("2", "search_notes", `{"query":"milk"}`), tc("3", "list_notes", ``)),
		answer("You have a note about milk."),
	}}
	a, err := agent.New(agent.Config{
		Model:  model,
		System: "You keep notes.",
		Tools:  []tool.Source{shadow, notes},
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(context.Background(), []llm.Message{llm.UserText("Do I have a note about milk?")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "You have a note about milk." || res.Steps != 3 || res.Usage.InputTokens != 30 {
		t.Fatalf("result %+v", res)
	}
	if got := toolResult(t, res.Messages, "2").Text(); !strings.Contains(got, "#1 milk") {
		t.Fatalf("search result %q", got)
	}
	if got := toolResult(t, res.Messages, "3").Text(); got != "local list_notes" {
		t.Fatalf("local tool not tried first: %q", got)
	}
	// The system prompt: own prompt, then the instructions the server
	// brought, under its name; the same bytes on every turn.
	first := model.seen[0].System
	if !strings.HasPrefix(first, "You keep notes.\n\n# Instructions from MCP servers") || !strings.Contains(first, "## MCP server: notes\n<server_instructions>") {
		t.Fatalf("system prompt:\n%s", first)
	}
	for i, req := range model.seen {
		if req.System != first {
			t.Fatalf("turn %d system prompt differs", i)
		}
	}
	// The agent's own tools first (the demo has skills and resources),
	// then the local tools, no duplicate name.
	names := map[string]int{}
	var order []string
	for _, d := range model.seen[0].Tools {
		names[d.Name]++
		order = append(order, d.Name)
	}
	want := []string{agent.LoadSkillName, agent.ReadSkillFileName, agent.ReadResourceName, "list_notes"}
	if names["list_notes"] != 1 || names["add_note"] != 1 || !slices.Equal(order[:4], want) {
		t.Fatalf("definitions %v, want %v first", order, want)
	}
}

// Each call waits for the other: run one after the other, they would wait
// until the run's deadline, which in the bubble comes at once.
func TestParallelCallsRunConcurrently(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var arrived sync.WaitGroup
		arrived.Add(2)
		both := make(chan struct{})
		go func() { arrived.Wait(); close(both) }()
		wait, _ := tool.Func("wait", "", func(ctx context.Context, _ struct{}) (string, error) {
			arrived.Done()
			select {
			case <-both:
				return "together", nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		})
		model := &scripted{turns: []func(llm.Request) llm.Message{
			calls(tc("a", "wait", ``), tc("b", "wait", ``)),
			answer("done"),
		}}
		a, _ := agent.New(agent.Config{Model: model, Tools: []tool.Source{wait}})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		res, err := a.Run(ctx, []llm.Message{llm.UserText("go")})
		if err != nil {
			t.Fatalf("calls did not run concurrently: %v", err)
		}
		// Results in the order of the calls.
		if res.Messages[2].ToolCallID != "a" || res.Messages[3].ToolCallID != "b" {
			t.Fatalf("order %s %s", res.Messages[2].ToolCallID, res.Messages[3].ToolCallID)
		}
	})
}

// In the bubble time is fake: the server's slow_count waits 10 s, the
// provider's bound of 1 s passes while it does, and no other call can meet it
// however loaded the machine.
func TestFailuresReachTheModel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		notes := demoProvider(t, mcpclient.WithRequestTimeout(time.Second))
		gate, err := policy.New(policy.Config{Deny: []string{"delete_*"}})
		if err != nil {
			t.Fatal(err)
		}
		model := &scripted{turns: []func(llm.Request) llm.Message{
			calls(
				tc("unserved", "no_such_tool", `{}`),
				tc("misspelt", "get-notes", `{"id": 1}`),
				tc("failed", "get_note", `{"id": 7}`),
				tc("refused", "mcp__notes__delete_note", `{"id": 1}`),
				tc("timeout", "slow_count", `{"to": 2, "delay_ms": 10000}`),
			),
			answer("ok"),
		}}
		a, _ := agent.New(agent.Config{Model: model, Tools: []tool.Source{notes}, Policy: gate})
		res, err := a.Run(context.Background(), []llm.Message{llm.UserText("x")})
		if err != nil {
			t.Fatal(err)
		}
		for id, want := range map[string]string{
			"unserved": `There is no tool named "no_such_tool". Call only`,
			"misspelt": `There is no tool named "get-notes"; did you mean "get_note"?`,
			"failed":   "The tool ran and failed: no note with id 7",
			"refused":  "The call was refused and did not run",
			"timeout":  "did not answer in time",
		} {
			m := toolResult(t, res.Messages, id)
			if !m.IsError || !strings.Contains(m.Text(), want) {
				t.Errorf("%s: %q (error %v), want %q", id, m.Text(), m.IsError, want)
			}
		}
		// The denied tool is not even offered.
		for _, d := range model.seen[0].Tools {
			if d.Name == "delete_note" {
				t.Fatal("a denied tool was offered")
			}
		}
	})
}

// lostError is a failure of a handler of the host's own, which says what it
// means by the methods package tool reads.
type lostError struct{}

func (lostError) Error() string        { return "the line went dead" }
func (lostError) OutcomeUnknown() bool { return true }

// Proves that what a failure means is the error's to say, whoever made it:
// the agent knows no handler's error types.
func TestOutcomeUnknownReachesTheModel(t *testing.T) {
	lost := tool.HandlerFunc(func(_ context.Context, name string, _ json.RawMessage) (tool.Reply, error) {
		return tool.Reply{}, fmt.Errorf("paying: %w", lostError{})
	})
	model := &scripted{turns: []func(llm.Request) llm.Message{calls(tc("1", "pay", `{}`)), answer("checked")}}
	a, _ := agent.New(agent.Config{Model: model, Tools: []tool.Source{tool.Set{Handler: lost}}})
	res, err := a.Run(context.Background(), []llm.Message{llm.UserText("x")})
	if err != nil {
		t.Fatalf("a call with an unknown outcome must not end the run: %v", err)
	}
	if m := toolResult(t, res.Messages, "1"); !strings.Contains(m.Text(), "whether the tool ran is unknown") {
		t.Fatalf("result %q", m.Text())
	}
}

func TestPointlessErrorsEndRun(t *testing.T) {
	notes := demoProvider(t)
	model := &scripted{turns: []func(llm.Request) llm.Message{
		calls(tc("1", "list_notes", ``)),
		answer("never"),
	}}
	a, _ := agent.New(agent.Config{Model: model, Tools: []tool.Source{notes}})
	notes.Close() // the server is gone for good
	_, err := a.Run(context.Background(), []llm.Message{llm.UserText("x")})
	var te *mcpclient.TransportError
	if !errors.As(err, &te) {
		t.Fatalf("got %v; want Run to end with the transport error", err)
	}
}

func TestImagesAndBudget(t *testing.T) {
	notes := demoProvider(t)
	long, _ := tool.Func("long", "", func(context.Context, struct{}) (string, error) {
		return strings.Repeat("x", 500), nil
	})
	run := func(vision bool) *agent.Result {
		model := &scripted{vision: vision, turns: []func(llm.Request) llm.Message{
			calls(tc("img", "color_swatch", `{"color":"red"}`), tc("long", "long", ``)),
			answer("ok"),
		}}
		a, _ := agent.New(agent.Config{Model: model, Tools: []tool.Source{long, notes}, ResultBudget: 100})
		res, err := a.Run(context.Background(), []llm.Message{llm.UserText("x")})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run(true)
	if img := toolResult(t, res.Messages, "img"); !hasImages(img) {
		t.Fatal("a vision model should get the image")
	}
	if got := toolResult(t, res.Messages, "long").Text(); !strings.HasPrefix(got, strings.Repeat("x", 100)+"\n[… 400 more characters") {
		t.Fatalf("budget: %q", got)
	}
	res = run(false)
	img := toolResult(t, res.Messages, "img")
	if hasImages(img) || !strings.Contains(img.Text(), modelio.ImageMark) {
		t.Fatalf("a model without vision should read [image]: %q", img.Text())
	}
}

func TestStepLimitAndCancel(t *testing.T) {
	loop := func(llm.Request) llm.Message {
		return llm.Message{ToolCalls: []llm.ToolCall{tc("x", "list_notes", ``)}}
	}
	notes := demoProvider(t)
	model := &scripted{turns: []func(llm.Request) llm.Message{loop, loop, loop}}
	a, _ := agent.New(agent.Config{Model: model, Tools: []tool.Source{notes}, MaxSteps: 2})
	res, err := a.Run(context.Background(), []llm.Message{llm.UserText("x")})
	if !errors.Is(err, agent.ErrStepLimit) || res.Steps != 2 {
		t.Fatalf("got %v after %d steps", err, res.Steps)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	block, _ := tool.Func("block", "", func(ctx context.Context, _ struct{}) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	})
	model = &scripted{turns: []func(llm.Request) llm.Message{calls(tc("b", "block", ``)), answer("no")}}
	a, _ = agent.New(agent.Config{Model: model, Tools: []tool.Source{block}})
	if _, err := a.Run(ctx, []llm.Message{llm.UserText("x")}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}
}

func TestBadConfig(t *testing.T) {
	if _, err := agent.New(agent.Config{}); err == nil {
		t.Fatal("no model accepted")
	}
	if _, err := agent.New(agent.Config{Model: &scripted{}, MaxSteps: -1}); err == nil || !strings.Contains(err.Error(), "MaxSteps -1") {
		t.Fatalf("a negative step limit: %v, want it refused by name", err)
	}
}

func TestProgressiveDisclosure(t *testing.T) {
	defs := catalog201(false)
	handler := tool.HandlerFunc(func(_ context.Context, name string, _ json.RawMessage) (tool.Reply, error) {
		return tool.Text("ran " + name), nil
	})
	model := &scripted{turns: []func(llm.Request) llm.Message{
		calls(tc("1", agent.FindToolsName, `{"query":"weather"}`)),
		calls(tc("2", agent.LoadToolsName, `{"names":["weather_now","nope"]}`), tc("bad", agent.LoadToolsName, `{"names":"weather_now"}`)),
		calls(tc("3", "weather_now", `{"city":"Montreal"}`)),
		answer("sunny"),
	}}
	a, _ := agent.New(agent.Config{Model: model, Tools: []tool.Source{tool.Set{Definitions: defs, Handler: handler}}})
	res, err := a.Run(context.Background(), []llm.Message{llm.UserText("weather?")})
	if err != nil {
		t.Fatal(err)
	}
	whole := agent.EstimateTokens(defs)
	t.Logf("201-tool catalog: %d tokens of definitions per turn sent whole; with progressive disclosure %d tokens over %d turns (%d on the first)",
		whole, res.ToolTokens, res.Steps, agent.EstimateTokens(model.seen[0].Tools))
	fmt.Printf("progressive disclosure, 201 tools: whole catalog %d tokens/turn, disclosed %d tokens/turn on average\n", whole, res.ToolTokens/res.Steps)
	if res.ToolTokens >= whole {
		t.Fatalf("disclosure sent %d tokens over the run, more than the whole catalog's %d for one turn", res.ToolTokens, whole)
	}
	if len(model.seen[0].Tools) != 2 {
		t.Fatalf("first turn offered %d tools", len(model.seen[0].Tools))
	}
	if got := toolResult(t, res.Messages, "1").Text(); !strings.HasPrefix(got, "weather_now:") {
		t.Fatalf("find: %q", got)
	}
	if got := toolResult(t, res.Messages, "2").Text(); !strings.Contains(got, "Loaded weather_now") || !strings.Contains(got, "nope") {
		t.Fatalf("load: %q", got)
	}
	// Arguments of the wrong shape are a failure the model reads, in the
	// words every tool's are, not an empty success.
	if m := toolResult(t, res.Messages, "bad"); !m.IsError || !strings.Contains(m.Text(), `argument "names": want null or array, got string`) {
		t.Fatalf("load with a string: %q (error %v)", m.Text(), m.IsError)
	}
	last := model.seen[2].Tools
	if len(last) != 3 || last[2].Name != "weather_now" {
		t.Fatalf("the loaded tool did not join the next turn: %v", last)
	}
	if got := toolResult(t, res.Messages, "3").Text(); got != "ran weather_now" {
		t.Fatalf("call: %q", got)
	}
}

// OnToolCall sees every call, whichever way it is served: a local tool, the
// handler, a skill tool, progressive disclosure's search, and a failure.
func TestOnToolCall(t *testing.T) {
	notes := demoProvider(t)
	ctx := context.Background()
	local, _ := tool.Func("clock", "the time", func(context.Context, struct{}) (string, error) {
		return "noon", nil
	})
	model := &scripted{turns: []func(llm.Request) llm.Message{
		calls(
			tc("1", "clock", ``),
			tc("2", "add_note", `{"title":"milk","body":"buy milk"}`),
			tc("3", agent.LoadSkillName, `{"skill": "notes/weekly-review"}`),
			tc("4", agent.FindToolsName, `{"query":"note"}`),
			tc("5", "no_such_tool", ``),
		),
		answer("done"),
	}}
	var mu sync.Mutex
	seen := map[string]string{}
	a, err := agent.New(agent.Config{
		Model:           model,
		Tools:           []tool.Source{local, notes},
		ToolTokenBudget: 1, // progressive disclosure, so that find_tools is served
		OnToolCall: func(call llm.ToolCall) func(tool.Reply, error) {
			mu.Lock()
			seen[call.Name] = "started"
			mu.Unlock()
			return func(res tool.Reply, err error) {
				mu.Lock()
				defer mu.Unlock()
				if seen[call.Name] != "started" {
					t.Errorf("%s done without starting", call.Name)
				}
				if err != nil {
					seen[call.Name] = "error"
					return
				}
				line, _, _ := strings.Cut(res.Text(), "\n")
				seen[call.Name] = line
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(ctx, []llm.Message{llm.UserText("x")}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"clock":             "noon",
		"add_note":          "added note #1: milk",
		agent.LoadSkillName: "Skill notes/weekly-review, from MCP server notes:",
		agent.FindToolsName: "add_note:",
		"no_such_tool":      "error",
	} {
		if got, ok := seen[name]; !ok || !strings.HasPrefix(got, want) {
			t.Errorf("OnToolCall for %s: %q (seen %v), want %q", name, got, ok, want)
		}
	}
}

// changing is a source whose tools change between offers, as a server's do
// when it sends list_changed.
type changing struct {
	mu     sync.Mutex
	offers int
}

func (c *changing) Offer(context.Context) (tool.Set, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offers++
	name := fmt.Sprintf("tool_v%d", c.offers)
	t, err := tool.Func(name, "", func(context.Context, struct{}) (string, error) { return "ran " + name, nil })
	if err != nil {
		return tool.Set{}, err
	}
	return t, nil
}

// Proves that each run takes the tools as its sources offer them as it
// starts, and keeps them for the whole run: one agent serves a chat whose
// servers change their tools between turns.
func TestToolsTakenPerRun(t *testing.T) {
	src := &changing{}
	model := &scripted{turns: []func(llm.Request) llm.Message{
		calls(tc("1", "tool_v1", `{}`)), answer("one"),
		calls(tc("2", "tool_v2", `{}`)), answer("two"),
	}}
	a, err := agent.New(agent.Config{Model: model, Tools: []tool.Source{src}})
	if err != nil {
		t.Fatal(err)
	}
	for run, want := range []string{"ran tool_v1", "ran tool_v2"} {
		res, err := a.Run(context.Background(), []llm.Message{llm.UserText("go")})
		if err != nil {
			t.Fatal(err)
		}
		if m := toolResult(t, res.Messages, fmt.Sprint(run+1)); m.Text() != want {
			t.Fatalf("run %d: %q, want %q", run+1, m.Text(), want)
		}
	}
	if src.offers != 2 {
		t.Fatalf("%d offers for two runs of two steps each, want one a run", src.offers)
	}
	for i, req := range model.seen {
		want := fmt.Sprintf("tool_v%d", i/2+1)
		if len(req.Tools) != 1 || req.Tools[0].Name != want {
			t.Fatalf("step %d offered %v, want %s", i, req.Tools, want)
		}
	}
}
