package codemode_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/codemode"
	"github.com/mcpbridge/mcpbridge/policy"
	"github.com/mcpbridge/mcpbridge/tool"
)

// A denied tool is not in the API, and a script that names it anyway, by
// any of its names, is refused by the gate: the server never hears of it.
// The approver is asked about every call the patterns let through.
func TestDeniedToolRefused(t *testing.T) {
	set, c := demoSet(t)
	var asked []string
	pol, err := policy.New(policy.Config{
		Deny: []string{"delete_*"},
		Approver: func(_ context.Context, call policy.Call) (policy.Decision, error) {
			asked = append(asked, call.Name)
			return policy.Decision{Approved: call.Name != "add_note"}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	rt := runtime(t, pol.Gate(set), codemode.Config{})
	out := run(t, rt, `
		const seen = [];
		try { tools.demo.delete_note } catch (e) { seen.push(e.name + ": " + e.message.slice(0, 51)) }
		for (const name of ["delete_note", "mcp__demo__delete_note", "demo.delete_note"]) {
			try { await callTool(name, {id: 1}) } catch (e) { seen.push(e.name + ": " + e.message) }
		}
		try { await tools.demo.add_note({title: "t", body: "b"}) } catch (e) { seen.push(e.name + ": " + e.message) }
		seen.push(await tools.demo.list_notes());
		return seen;
	`)
	want := `["TypeError: tools.demo.delete_note is not a tool you were given","RefusedError: the tool \"delete_note\" is denied by policy pattern \"delete_*\"","RefusedError: the tool \"delete_note\" is denied by policy pattern \"delete_*\"","ReferenceError: there is no tool named \"demo.delete_note\"","RefusedError: the user declined to run \"add_note\"","no notes yet"]`
	if string(out.Value) != want {
		t.Fatalf("got  %s\nwant %s", out.Value, want)
	}
	if n := c.get("tools/call"); n != 1 {
		t.Fatalf("the server got %d calls; want the one allowed", n)
	}
	if strings.Join(asked, ",") != "add_note,list_notes" {
		t.Fatalf("the approver was asked about %v", asked)
	}
	if !strings.Contains(out.Summary, "3 refused") {
		t.Fatalf("summary %q", out.Summary)
	}
	if !strings.Contains(out.Summary, "1 failed") {
		t.Fatalf("summary %q", out.Summary)
	}
	if strings.Contains(rt.Declarations(""), "delete_note") {
		t.Fatal("the denied tool is declared")
	}
}

// Arguments that do not match a tool's schema are refused before they are
// sent, in the words every handler uses.
func TestArgumentsChecked(t *testing.T) {
	set, c := demoSet(t)
	// Building 2 MiB of arguments takes seconds of CPU under the race
	// detector on a loaded machine: the budget is not what is tested.
	rt := runtime(t, set, codemode.Config{CPUTime: 5 * time.Minute, Timeout: 5 * time.Minute})
	_, err := rt.Run(context.Background(), `await tools.demo.get_note({id: "seven"})`)
	var se *codemode.ScriptError
	if !errors.As(err, &se) || se.Name != "RefusedError" || !strings.Contains(se.Message, `argument "id"`) {
		t.Fatalf("got %v", err)
	}
	for _, script := range []string{`await tools.demo.list_notes([1])`, `await tools.demo.list_notes("x")`, `await tools.demo.add_note({title: "t", body: "b".repeat(2 << 20)})`} {
		if _, err := rt.Run(context.Background(), script); !errors.As(err, &se) || se.Name != "TypeError" || !strings.Contains(se.Message, "must be an object") && !strings.Contains(se.Message, "more than a call may send (1 MiB)") {
			t.Fatalf("%s: %v", script, err)
		}
	}
	if n := c.get("tools/call"); n != 0 {
		t.Fatalf("the server got %d calls", n)
	}
}

// A script reaches nothing of the host but tools and console: no module,
// file, network, timer or host function.
func TestSandbox(t *testing.T) {
	rt := runtime(t, tool.Set{}, codemode.Config{})
	out := run(t, rt, `
		const names = ["require", "process", "fetch", "XMLHttpRequest", "setTimeout", "setInterval", "print", "std", "os",
			"__mcpbridge_call", "__mcpbridge_print", "__mcpbridge_done", "__mcpbridge_run", "Deno", "Bun", "WebAssembly"];
		const present = names.filter(n => typeof globalThis[n] !== "undefined");
		let imported;
		try { await import("fs"); imported = "yes" } catch (e) { imported = e.name }
		return {present, imported, tools: Object.keys(tools)};
	`)
	if string(out.Value) != `{"present":[],"imported":"TypeError","tools":[]}` && !strings.Contains(string(out.Value), `"present":[]`) {
		t.Fatalf("%s", out.Value)
	}
	if strings.Contains(string(out.Value), `"imported":"yes"`) {
		t.Fatalf("a module was loaded: %s", out.Value)
	}
}

// What a script throws is cut to its bounds, whatever its parts: the
// interpreter's process may send no more.
func TestThrownCut(t *testing.T) {
	rt := runtime(t, tool.Set{}, codemode.Config{MaxOutput: 1024, CPUTime: 5 * time.Minute, Timeout: 5 * time.Minute})
	_, err := rt.Run(context.Background(), `throw Object.assign(new Error("m".repeat(1e6)), {name: "n".repeat(2e6), tool: "t".repeat(1e6)})`)
	var se *codemode.ScriptError
	if !errors.As(err, &se) || len(se.Name) > 1100 || len(se.Message) > 1100 || len(se.Tool) > 1100 || !strings.HasPrefix(se.Name, "nnn") {
		t.Fatalf("got %.200v", err)
	}
}
