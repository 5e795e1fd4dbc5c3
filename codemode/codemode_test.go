package codemode_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/codemode"
	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/tool"
)

// demoSet connects to a demo server in this process, named "demo" as the
// command line names it, and counts the requests it receives by method.
func demoSet(t *testing.T) (tool.Set, *counter) {
	t.Helper()
	c := &counter{}
	srv := demo.New()
	srv.AddReceivingMiddleware(c.middleware)
	p := mcpclient.FromServer("demo", srv)
	t.Cleanup(func() { p.Close() })
	if err := p.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	set, err := p.Offer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return set, c
}

// counter counts the requests a server receives, by method.
type counter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counter) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		c.mu.Lock()
		if c.n == nil {
			c.n = map[string]int{}
		}
		c.n[method]++
		c.mu.Unlock()
		return next(ctx, method, req)
	}
}

func (c *counter) get(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[method]
}

func runtime(t *testing.T, set tool.Set, cfg codemode.Config) *codemode.Runtime {
	t.Helper()
	rt, err := codemode.New(set, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

func run(t *testing.T, rt *codemode.Runtime, script string) *codemode.Output {
	t.Helper()
	out, err := rt.Run(context.Background(), script)
	if err != nil {
		t.Fatalf("%v\nconsole: %s", err, out.Console)
	}
	return out
}

// The demo's tools as a script reaches them: text, structured content, a
// tool's failure thrown and caught, an image described, calls in parallel.
func TestScriptOnDemo(t *testing.T) {
	set, _ := demoSet(t)
	rt := runtime(t, set, codemode.Config{})
	out := run(t, rt, `
		await tools.demo.add_note({title: "a", body: "b", tags: ["work"]});
		const found = await tools.demo.search_notes({query: "a"});
		const stats = await tools.demo.note_stats();
		let caught;
		try { await tools.demo.get_note({id: 99}) } catch (e) { caught = e.name + ": " + e.message + " @" + e.tool }
		const swatch = await tools.demo.color_swatch({color: "teal"});
		const many = await Promise.all([1, 2, 3].map(i => tools.demo.add_note({title: "n" + i, body: "x"})));
		console.log("found", found);
		return {found, count: stats.count, tags: stats.tags, caught, swatch, many};
	`)
	var v struct {
		Found  string
		Count  int
		Tags   map[string]int
		Caught string
		Swatch []any
		Many   []string
	}
	if err := json.Unmarshal(out.Value, &v); err != nil {
		t.Fatalf("%v: %s", err, out.Value)
	}
	if v.Found != "#1 a [work]" || v.Count != 1 || v.Tags["work"] != 1 {
		t.Fatalf("text and structured results: %s", out.Value)
	}
	if v.Caught != "ToolError: no note with id 99 @demo.get_note" {
		t.Fatalf("the tool's failure: %q", v.Caught)
	}
	if len(v.Swatch) != 2 || v.Swatch[0] != "64x64 swatch of #008080" {
		t.Fatalf("swatch: %v", v.Swatch)
	}
	if im, _ := v.Swatch[1].(map[string]any); im["type"] != "image" || im["mimeType"] != "image/png" || im["bytes"].(float64) < 50 || im["data"] != nil {
		t.Fatalf("the image is not described alone: %v", v.Swatch[1])
	}
	if len(v.Many) != 3 || !strings.HasPrefix(v.Many[2], "added note #") {
		t.Fatalf("parallel calls: %v", v.Many)
	}
	if out.Console != "found #1 a [work]\n" {
		t.Fatalf("console: %q", out.Console)
	}
	if want := "8 tool calls (demo.add_note 4, demo.search_notes 1, demo.note_stats 1, demo.get_note 1, demo.color_swatch 1); 1 failed"; out.Summary != want {
		t.Fatalf("summary %q", out.Summary)
	}
}

// A tool's failure the script does not catch is the run's error, naming
// the tool, with the tool's own failure in its chain.
func TestUncaughtToolFailure(t *testing.T) {
	set, _ := demoSet(t)
	rt := runtime(t, set, codemode.Config{})
	_, err := rt.Run(context.Background(), "console.log('before');\nawait tools.demo.get_note({id: 7});\n")
	var se *codemode.ScriptError
	if !errors.As(err, &se) || se.Name != "ToolError" || se.Tool != "demo.get_note" || se.Message != "no note with id 7" {
		t.Fatalf("got %#v", err)
	}
	if !errors.As(err, new(*tool.FailedError)) || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("%v: want the tool's failure in the chain, and the line", err)
	}
}

// A call the script did not wait for is waited for before the run ends,
// not cancelled: the tool's effect is whole.
func TestCallsInFlightAtReturn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		set, c := demoSet(t)
		rt := codemode.InProcess(runtime(t, set, codemode.Config{}))
		out := run(t, rt, `tools.demo.slow_count({to: 2, delay_ms: 1000}); tools.demo.add_note({title: "later", body: "b"}); return 1`)
		if string(out.Value) != "1" || out.Summary != "2 tool calls (demo.slow_count 1, demo.add_note 1)" {
			t.Fatalf("%s, %q", out.Value, out.Summary)
		}
		synctest.Wait()
		if n := c.get("notifications/cancelled"); n != 0 {
			t.Fatalf("%d calls cancelled", n)
		}
		if got := run(t, rt, `return await tools.demo.list_notes()`); string(got.Value) != `"#1 later"` {
			t.Fatalf("after: %s", got.Value)
		}
	})
}

// The images a script returns, among its calls' results, are the Output's
// (for a model that takes images), each once and in their order; an object
// the script makes up to look like one is not an image, and an image it
// does not return stays in the script.
func TestReturnedImages(t *testing.T) {
	set, _ := demoSet(t)
	rt := runtime(t, set, codemode.Config{})
	out := run(t, rt, `
		const [, teal] = await tools.demo.color_swatch({color: "teal"});
		const [, red] = await tools.demo.color_swatch({color: "red"});
		await tools.demo.color_swatch({color: "blue"});
		const fake = {type: "image", mimeType: "image/png", bytes: 3};
		return {first: red, again: [red, teal, red], fake};`)
	if len(out.Images) != 2 || out.Images[0].MIMEType != "image/png" || len(out.Images[0].Data) == 0 || string(out.Images[0].Data) == string(out.Images[1].Data) {
		t.Fatalf("images %d; want red's and teal's", len(out.Images))
	}
	if !strings.Contains(string(out.Value), `"fake":{"type":"image","mimeType":"image/png","bytes":3}`) {
		t.Fatalf("value %s", out.Value)
	}
	red := run(t, rt, `const [, red] = await tools.demo.color_swatch({color: "red"}); return red`)
	if len(red.Images) != 1 || string(red.Images[0].Data) != string(out.Images[0].Data) {
		t.Fatal("the first image returned is not red's")
	}
	if none := run(t, rt, `await tools.demo.color_swatch({color: "red"}); return 1`); len(none.Images) != 0 {
		t.Fatalf("%d images of a script that returned none", len(none.Images))
	}
}

// A tool's name may be longer than the specification's 128 bytes, and a
// script calls it; a name longer than any tool's is refused in the
// interpreter, and never reaches the host.
func TestCallToolNameBound(t *testing.T) {
	long := "t" + strings.Repeat("x", 1500)
	var got []string
	set := tool.Set{
		Definitions: []tool.Definition{{Name: long, InputSchema: json.RawMessage(`{"type":"object"}`)}},
		Handler: tool.HandlerFunc(func(_ context.Context, name string, _ json.RawMessage) (tool.Reply, error) {
			got = append(got, name)
			return tool.Text("ok"), nil
		}),
	}
	rt := runtime(t, set, codemode.Config{})
	out := run(t, rt, `return await callTool("`+long+`", {});`)
	if string(out.Value) != `"ok"` || len(got) != 1 || got[0] != long {
		t.Fatalf("the long name's call: %s, handler saw %d calls", out.Value, len(got))
	}
	_, err := rt.Run(context.Background(), `await callTool("x".repeat(5000), {});`)
	var se *codemode.ScriptError
	if !errors.As(err, &se) || !strings.Contains(se.Message, "a tool name of") || len(got) != 1 {
		t.Fatalf("a name past every tool's: %v, handler saw %d calls", err, len(got))
	}
}
