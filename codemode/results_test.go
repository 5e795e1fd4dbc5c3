package codemode_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/codemode"
	"github.com/mcpbridge/mcpbridge/tool"
)

// lt is a local tool whose text result is n characters "<": what HTML
// escaping in JSON makes six bytes each.
func lt(t *testing.T) tool.Set {
	t.Helper()
	set, err := tool.Func("lt", "n characters <.", func(_ context.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		return strings.Repeat("<", in.N), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// A script takes in at most its budget of result bytes, all its calls
// together, each counted as the bytes it is: a call past the budget
// rejects with a BudgetError the script may catch, and one it does not
// catch ends the run with the budget in the error's chain.
func TestResultBudget(t *testing.T) {
	rt := runtime(t, lt(t), codemode.Config{MaxResultBytes: 20 << 20})
	out := run(t, rt, `
		const a = await tools.local.lt({n: 16e6});
		let e;
		try { await tools.local.lt({n: 8e6}) } catch (x) { e = x.name + ": " + x.message }
		const b = await tools.local.lt({n: 1e6});
		return [a.length, a.slice(0, 3), e, b.length];`)
	want := `[16000000,"<<<","BudgetError: the result of local.lt, 8000000 bytes, passes what is left of the script's budget of 20 MiB for results: 4971520 bytes",1000000]`
	if string(out.Value) != want {
		t.Fatalf("got  %s\nwant %s", out.Value, want)
	}
	_, err := rt.Run(context.Background(), `await tools.local.lt({n: 21e6})`)
	var se *codemode.ScriptError
	if !errors.As(err, &se) || se.Name != "BudgetError" {
		t.Fatalf("got %v; want the script's error", err)
	}
	wantBudget(t, err, "MaxResultBytes")
	// The default takes the 16 MB result, and is a budget: a
	// negative one is refused.
	if out := run(t, runtime(t, lt(t), codemode.Config{}), `return (await tools.local.lt({n: 16e6})).length`); string(out.Value) != "16000000" {
		t.Fatalf("default budget: %s", out.Value)
	}
	if _, err := codemode.New(tool.Set{}, codemode.Config{MaxResultBytes: -1}); err == nil || !strings.Contains(err.Error(), "Config.MaxResultBytes is negative") {
		t.Fatalf("a negative budget: %v", err)
	}
}

// A result costs the process the script runs in a few times its size (the
// tool's own, or the host's pipe's; a passing copy into the interpreter;
// the interpreter's), not the six bytes a character "<" takes escaped in
// JSON, nor copies more: one 16 MB result grows the peak resident size by
// less than 64 MiB (the race detector's shadow memory aside), where
// escaped and copied it took hundreds.
func TestResultMemory(t *testing.T) {
	const n = 16e6
	bound := int64(64 << 20)
	if raceOn {
		bound *= 3
	}
	check := func(t *testing.T, rt *codemode.Runtime, before, after func() (int64, bool)) {
		unharmed(t, rt)
		base, measured := before()
		out := run(t, rt, `const s = await tools.local.lt({n: 16e6}); return s.length`)
		if string(out.Value) != "16000000" {
			t.Fatalf("got %s", out.Value)
		}
		if peak, ok := after(); measured && ok {
			grew := peak - base
			t.Logf("a result of %d MB: the peak resident size grew by %d MiB", int(n/1e6), grew>>20)
			if grew > bound {
				t.Fatalf("a result of %d MB grew the peak resident size by %d MiB", int(n/1e6), grew>>20)
			}
		}
	}
	t.Run("in-process", func(t *testing.T) {
		check(t, codemode.InProcess(runtime(t, lt(t), codemode.Config{})), func() (int64, bool) {
			if !resetPeakRSS() {
				return 0, false
			}
			return peakRSS()
		}, peakRSS)
	})
	t.Run("own-process", func(t *testing.T) {
		if os.Getenv(peakChildEnv) == "" {
			inNewProcess(t)
			return
		}
		measure := func() (int64, bool) { return childrenPeakRSS() }
		check(t, runtime(t, lt(t), codemode.Config{}), measure, measure)
	})
}
