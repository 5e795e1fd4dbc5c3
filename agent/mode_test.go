package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/agent"
	"github.com/mcpbridge/mcpbridge/codemode"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/testing/oteltest"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/policy"
	"github.com/mcpbridge/mcpbridge/tool"
)

// modeCode names code mode among the modes a test compares: it is no Mode
// of agent's but Config.Code set, as withMode sets it.
const modeCode agent.Mode = "code"

// withMode puts cfg in mode m.
func withMode(cfg agent.Config, m agent.Mode) agent.Config {
	if m == modeCode {
		cfg.Code = codemode.Config{}
	} else {
		cfg.Mode = m
	}
	return cfg
}

// script is a model's call of run_code.
func script(id, code string) llm.ToolCall {
	args, _ := json.Marshal(map[string]string{"code": code})
	return llm.ToolCall{ID: id, Name: "run_code", Arguments: args}
}

// In code mode the model sees run_code and describe_tools in place of the
// catalog, reads the declarations it needs, and gets back what its script
// returned and printed after a line that sums up its calls.
func TestCodeMode(t *testing.T) {
	p := demoProvider(t)
	model := &scripted{turns: []func(llm.Request) llm.Message{
		calls(tc("1", "describe_tools", `{"query":"notes add_note search"}`)),
		calls(script("2", `
			await Promise.all(["milk", "bread"].map(title => tools.notes.add_note({title, body: "buy", tags: ["shop"]})));
			console.log("added");
			return await tools.notes.search_notes({query: "shop"});`)),
		calls(script("3", `await tools.notes.get_note({id: 9})`)),
		answer("two notes"),
	}}
	a, err := agent.New(agent.Config{Model: model, Tools: []tool.Source{p}, Code: codemode.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(context.Background(), []llm.Message{llm.UserText("note milk and bread")})
	if err != nil {
		t.Fatal(err)
	}
	for i, req := range model.seen {
		if names := toolNames(req.Tools); names != "run_code,describe_tools,load_skill,read_skill_file,read_resource" {
			t.Fatalf("turn %d offered %s", i, names)
		}
	}
	if d := toolResult(t, res.Messages, "1").Text(); !strings.Contains(d, "add_note(args: {") || !strings.Contains(d, "search_notes(args: {") {
		t.Fatalf("declarations:\n%s", d)
	}
	got := toolResult(t, res.Messages, "2").Text()
	if !strings.HasPrefix(got, "3 tool calls (notes.add_note 2, notes.search_notes 1).\nReturned: \"#1 ") || !strings.HasSuffix(got, "\"\nConsole:\nadded") ||
		!strings.Contains(got, " milk [shop]") || !strings.Contains(got, " bread [shop]") {
		t.Fatalf("run_code answered %q", got)
	}
	failed := toolResult(t, res.Messages, "3")
	if !failed.IsError || !strings.Contains(failed.Text(), "threw ToolError: no note with id 9") || !strings.Contains(failed.Text(), "1 tool call (notes.get_note 1); 1 failed") {
		t.Fatalf("a script that threw: %q", failed.Text())
	}
}

func toolNames(defs []tool.Definition) string {
	var names []string
	for _, d := range defs {
		names = append(names, d.Name)
	}
	return strings.Join(names, ",")
}

// A script's calls pass the run's policy and its approver as the model's
// own do: a denied tool is not in the API, and is refused when named.
// Each call is an execute_tool span in run_code's, the MCP client span in
// it.
func TestCodeModeGatedAndTraced(t *testing.T) {
	rec := oteltest.New(t)
	p := demoProvider(t, mcpclient.WithTracerProvider(rec.Traces))
	var asked []string
	gate, err := policy.New(policy.Config{Deny: []string{"delete_*"}, Approver: func(_ context.Context, c policy.Call) (policy.Decision, error) {
		asked = append(asked, c.Name)
		return policy.Decision{Approved: true}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	model := &scripted{turns: []func(llm.Request) llm.Message{
		calls(script("1", `
			await tools.notes.add_note({title: "milk", body: "buy"});
			const out = [];
			try { tools.notes.delete_note } catch (e) { out.push(e.name) }
			for (const name of ["delete_note", "mcp__notes__delete_note"]) {
				try { await callTool(name, {id: 1}) } catch (e) { out.push(e.name + ": " + e.message) }
			}
			return out;`)),
		answer("done"),
	}}
	a, err := agent.New(agent.Config{Model: model, Tools: []tool.Source{p}, Policy: gate, Code: codemode.Config{}, TracerProvider: rec.Traces})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(context.Background(), []llm.Message{llm.UserText("note milk, then delete it")})
	if err != nil {
		t.Fatal(err)
	}
	got := toolResult(t, res.Messages, "1").Text()
	if !strings.Contains(got, `Returned: ["TypeError","RefusedError: the tool \"delete_note\" is denied by policy pattern \"delete_*\"","RefusedError: the tool \"delete_note\" is denied by policy pattern \"delete_*\""]`) {
		t.Fatalf("run_code answered %q", got)
	}
	if strings.Join(asked, ",") != "add_note" {
		t.Fatalf("the approver was asked about %v", asked)
	}
	if len(rec.Named("tools/call delete_note")) != 0 {
		t.Fatal("a denied call reached the server")
	}
	code := rec.Span(t, "execute_tool run_code")
	added := rec.Span(t, "execute_tool add_note")
	oteltest.ChildOf(t, added, code)
	oteltest.ChildOf(t, rec.Span(t, "tools/call add_note"), added)
	for _, s := range rec.Named("execute_tool delete_note") {
		oteltest.ChildOf(t, s, code)
		oteltest.Has(t, s, map[string]string{"error.type": "refused"})
	}
	if n := len(rec.Named("check_policy delete_note")) + len(rec.Named("check_policy mcp__notes__delete_note")); n != 2 {
		t.Fatalf("%d refusals traced; want 2", n)
	}
}

// What a script gives back is fitted to the result budget, the line that
// sums up its calls first; its budgets are the agent's Code.
func TestCodeModeBudgets(t *testing.T) {
	model := &scripted{turns: []func(llm.Request) llm.Message{
		calls(script("1", `for (let i = 0; i < 100; i++) console.log("line", i); return "x".repeat(50)`)),
		answer("ok"),
		calls(script("2", `for (;;) {}`)),
		answer("ok"),
	}}
	for _, c := range []struct {
		cfg   agent.Config
		id    string
		check func(llm.Message) bool
	}{{
		cfg: agent.Config{ResultBudget: 120},
		id:  "1",
		check: func(m llm.Message) bool {
			return strings.HasPrefix(m.Text(), "no tool calls.\nReturned: \"xxx") && strings.Contains(m.Text(), "more characters of this result were left out")
		},
	}, {
		cfg: agent.Config{Code: codemode.Config{CPUTime: 200 * time.Millisecond}},
		id:  "2",
		check: func(m llm.Message) bool {
			return m.IsError && strings.Contains(m.Text(), "CPU budget of 200ms: an endless loop?") && !strings.Contains(m.Text(), "Config")
		},
	}} {
		c.cfg.Model = model
		if c.cfg.Code == nil {
			c.cfg.Code = codemode.Config{}
		}
		a, err := agent.New(c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		res, err := a.Run(context.Background(), []llm.Message{llm.UserText("go")})
		if err != nil {
			t.Fatal(err)
		}
		if got := toolResult(t, res.Messages, c.id); !c.check(got) {
			t.Fatalf("run_code answered %q", got.Text())
		}
	}
	if _, err := agent.New(agent.Config{Model: model, Mode: "scripted"}); err == nil || !strings.Contains(err.Error(), `Mode "scripted"`) {
		t.Fatalf("a bad mode: %v", err)
	}
	if _, err := agent.New(agent.Config{Model: model, Code: codemode.Config{Memory: -1}}); err == nil || !strings.Contains(err.Error(), "agent: Code: codemode: Config.Memory is negative") {
		t.Fatalf("a negative budget: %v", err)
	}
	if _, err := agent.New(agent.Config{Model: model, Mode: agent.ModeDirect, Code: codemode.Config{}}); err == nil || !strings.Contains(err.Error(), `Mode "direct" and Code`) {
		t.Fatalf("a mode and code mode: %v", err)
	}
}

// On the 201-tool catalog, code mode's first turn costs no more than
// progressive disclosure's: the code tool names the servers, not the
// tools.
func TestCodeModeFirstTurn(t *testing.T) {
	defs := catalog201(true)
	first := map[agent.Mode]int{}
	for _, mode := range []agent.Mode{agent.ModeDirect, agent.ModeDisclosure, modeCode} {
		model := &scripted{turns: []func(llm.Request) llm.Message{answer("ok")}}
		a, _ := agent.New(withMode(agent.Config{Model: model, Tools: []tool.Source{tool.Set{Definitions: defs, Handler: tool.Compose()}}}, mode))
		if _, err := a.Run(context.Background(), []llm.Message{llm.UserText("weather?")}); err != nil {
			t.Fatal(err)
		}
		first[mode] = agent.EstimateTokens(model.seen[0].Tools)
	}
	fmt.Printf("code mode, 201-tool catalog, first turn: %d tokens of definitions (direct tools %d, progressive disclosure %d)\n", first[modeCode], first[agent.ModeDirect], first[agent.ModeDisclosure])
	if first[modeCode] > first[agent.ModeDisclosure] {
		t.Fatalf("code mode's first turn: %d tokens, more than disclosure's %d", first[modeCode], first[agent.ModeDisclosure])
	}
}

// catalog201 is a catalog of 201 tools; with servers, 200 of them are
// spread over 7 servers, as a toolset's would be.
func catalog201(servers bool) []tool.Definition {
	var defs []tool.Definition
	for i := range 200 {
		d := tool.Definition{
			Name:        fmt.Sprintf("service%03d_action", i),
			Description: fmt.Sprintf("Performs action %d of service %d: reads records, filters them by the given fields and returns a page of results with cursors.", i, i),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"what to look for"},"limit":{"type":"integer","minimum":1,"maximum":100},"cursor":{"type":"string"}},"required":["query"]}`),
		}
		if servers {
			d.Origin = tool.Origin{Server: fmt.Sprintf("service%d", i%7), Tool: fmt.Sprintf("action%03d", i)}
		}
		defs = append(defs, d)
	}
	return append(defs, tool.Definition{Name: "weather_now", Description: "Current weather for a city.", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)})
}

// A script's calls are the agent's calls: OnToolCall sees each as it
// starts, under the ID of the run_code call that made it and its number,
// and its result as it ends; a host that logs, approves or shows tool
// calls misses none.
func TestCodeModeCallsShown(t *testing.T) {
	p := demoProvider(t)
	model := &scripted{turns: []func(llm.Request) llm.Message{
		calls(script("7", `
			await tools.notes.add_note({title: "milk", body: "buy"});
			return await tools.notes.search_notes({query: "milk"});`)),
		answer("done"),
	}}
	var (
		mu    sync.Mutex
		shown []string
	)
	seen := func(call llm.ToolCall) func(tool.Reply, error) {
		mu.Lock()
		shown = append(shown, "start "+call.ID+" "+call.Name+" "+string(call.Arguments))
		mu.Unlock()
		return func(res tool.Reply, err error) {
			mu.Lock()
			defer mu.Unlock()
			line, _, _ := strings.Cut(res.Text(), "\n")
			shown = append(shown, fmt.Sprintf("done %s %s: %s %v", call.ID, call.Name, line, err))
		}
	}
	a, err := agent.New(agent.Config{Model: model, Tools: []tool.Source{p}, Code: codemode.Config{}, OnToolCall: seen})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(context.Background(), []llm.Message{llm.UserText("note milk")}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`start 7 run_code {"code":"\n\t\t\tawait tools.notes.add_note({title: \"milk\", body: \"buy\"});\n\t\t\treturn await tools.notes.search_notes({query: \"milk\"});"}`,
		`start 7/1 add_note {"title":"milk","body":"buy"}`,
		`done 7/1 add_note: added note #1: milk <nil>`,
		`start 7/2 search_notes {"query":"milk"}`,
		`done 7/2 search_notes: #1 milk <nil>`,
		`done 7 run_code: 2 tool calls (notes.add_note 1, notes.search_notes 1). <nil>`,
	}
	if strings.Join(shown, "\n") != strings.Join(want, "\n") {
		t.Fatalf("OnToolCall saw:\n%s\nwant:\n%s", strings.Join(shown, "\n"), strings.Join(want, "\n"))
	}
}

// An image a script returns reaches the model as an image where the model
// takes images, and as "[image]" where it does not; one it does not
// return stays in the script.
func TestCodeModeImages(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n a small image")
	snap, err := tool.Func("snap", "A picture of the screen.", func(context.Context, struct{}) (tool.Reply, error) {
		return tool.Reply{Parts: []tool.Part{tool.TextPart{Text: "the screen"}, tool.ImagePart{MIMEType: "image/png", Data: png}}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, vision := range []bool{true, false} {
		model := &scripted{vision: vision, turns: []func(llm.Request) llm.Message{
			calls(script("1", `const [caption, image] = await tools.local.snap(); await tools.local.snap(); return {caption, image}`)),
			answer("seen"),
		}}
		a, err := agent.New(agent.Config{Model: model, Tools: []tool.Source{snap}, Code: codemode.Config{}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := a.Run(context.Background(), []llm.Message{llm.UserText("look")})
		if err != nil {
			t.Fatal(err)
		}
		got := toolResult(t, res.Messages, "1")
		var images [][]byte
		for _, p := range got.Parts {
			if im, ok := p.(tool.ImagePart); ok {
				images = append(images, im.Data)
			}
		}
		text := got.Text()
		switch {
		case !strings.Contains(text, `Returned: {"caption":"the screen","image":{"type":"image","mimeType":"image/png","bytes":22}}`):
			t.Fatalf("run_code answered %q", text)
		case vision && (len(images) != 1 || string(images[0]) != string(png)):
			t.Fatalf("a vision model got images %q; want the one returned", images)
		case !vision && (len(images) != 0 || !strings.HasSuffix(text, "[image]")):
			t.Fatalf("a model without vision got %d images and %q", len(images), text)
		}
	}
}
