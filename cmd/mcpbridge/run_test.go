package main_test

import (
	"strings"
	"testing"
)

// The example on the demo: a script's calls, what it returns on
// stdout, the line that sums up its calls on stderr.
func TestRunOnTheDemo(t *testing.T) {
	r := mcpbridge(t, t.TempDir(), `await tools.demo.add_note({title: "a", body: "b"}); return await tools.demo.search_notes({query: "a"})`, nil, "run", "-")
	expect(t, r, 0, "2 tool calls (demo.add_note 1, demo.search_notes 1)")
	if r.out != "#1 a\n" {
		t.Fatalf("stdout %q", r.out)
	}
	r = mcpbridge(t, t.TempDir(), `console.log("stats"); return await tools.demo.note_stats()`, nil, "run", "-", "--json")
	expect(t, r, 0, "stats\n")
	var stats struct {
		Count        int            `json:"count"`
		Tags         map[string]int `json:"tags"`
		LongestTitle string         `json:"longest_title"`
	}
	decode(t, r.out, &stats)
	expect(t, mcpbridge(t, "", "", nil, "run", "--help"), 0, "tools.SERVER.TOOL(args)", "ToolError", "--max-calls")
}

// run exits as the other commands do: 1 when the script threw (a tool's
// failure it did not catch among them) or was stopped, 2 for a script it
// cannot read, 3 for a server that does not start.
func TestRunExitStatuses(t *testing.T) {
	dir := t.TempDir()
	r := mcpbridge(t, dir, "await tools.demo.get_note({id: 7})", nil, "run", "-")
	expect(t, r, 1, "mcpbridge run: the script threw ToolError: no note with id 7 (line 1)", "1 tool call (demo.get_note 1); 1 failed")
	r = mcpbridge(t, dir, "return (", nil, "run", "-")
	expect(t, r, 1, "the script threw SyntaxError")
	r = mcpbridge(t, dir, "for (;;) await tools.demo.list_notes()", nil, "run", "-", "--max-calls", "3")
	expect(t, r, 1, "the script was stopped at its tool calls' budget of 3 calls (raise it with --max-calls)", "3 tool calls (demo.list_notes 3)")
	r = mcpbridge(t, dir, "await tools.demo.drop_table()", nil, "run", "-")
	expect(t, r, 1, "tools.demo.drop_table is not a tool you were given; there are: add_note")
	expect(t, mcpbridge(t, dir, "", nil, "run", "-"), 2, "mcpbridge run: no script on stdin")
	expect(t, mcpbridge(t, dir, "", nil, "run", "missing.js"), 2, "missing.js")
	expect(t, mcpbridge(t, dir, "", nil, "run"), 2, "run takes one script")
	expect(t, mcpbridge(t, dir, "return 1", nil, "run", "-", "--", "/nonexistent/server"), 3, "did not start")
}

// tools --code prints the declarations a script programs against.
func TestToolsCode(t *testing.T) {
	r := mcpbridge(t, t.TempDir(), "", nil, "tools", "--code")
	expect(t, r, 0, "declare const tools: {\n  demo: {\n", "    add_note(args: {\n", "note_stats(args?: {}): Promise<{\n")
	expect(t, mcpbridge(t, "", "", nil, "tools", "--code", "--json"), 2, "give --code (the declarations) alone")
}

// chat --code: the model is offered run_code and describe_tools in place
// of the catalog, and its script's calls are shown with run_code's result.
func TestChatCode(t *testing.T) {
	script := `{"id":"c1","type":"function","function":{"name":"run_code","arguments":"{\"code\":\"return await tools.demo.list_notes()\"}"}}`
	url, seen := fakeOpenAI(t, script)
	env := []string{"OPENAI_BASE_URL=" + url, "OPENAI_API_KEY=test", "ANTHROPIC_API_KEY="}
	r := mcpbridge(t, t.TempDir(), "", env, "chat", "--code", "-p", "list my notes", "--model", "m")
	expect(t, r, 0, "← run_code: 1 tool call (demo.list_notes 1).")
	if _, tools, _ := seen(); !strings.HasPrefix(strings.Join(tools, ","), "run_code,describe_tools") {
		t.Fatalf("the model was offered %v", tools)
	}
}

// A 16 MB result of "<" reaches the script whole, within the default
// budgets: it enters the interpreter as the bytes it is, where escaped for
// HTML it took six times as many and passed the memory budget.
func TestRunTakesABigResult(t *testing.T) {
	server := hostileServer(t, "big-listed")
	r := mcpbridge(t, t.TempDir(), `const s = await callTool("big", {size: 16e6, char: "<"}); return s.length + " " + /[^<]/.test(s)`, nil,
		append([]string{"run", "-"}, server...)...)
	expect(t, r, 0)
	if r.out != "16000000 false\n" {
		t.Fatalf("stdout %.200q", r.out)
	}
}
