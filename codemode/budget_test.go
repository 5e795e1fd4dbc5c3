package codemode_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpbridge/mcpbridge/codemode"
	"github.com/mcpbridge/mcpbridge/tool"
)

// wantBudget fails the test unless err is the budget error of budget, in
// words that name it.
func wantBudget(t *testing.T, err error, budget string) {
	t.Helper()
	var be *codemode.BudgetError
	// The message is for a model and a person: no Go field in it.
	if !errors.As(err, &be) || be.Budget != budget || !strings.Contains(err.Error(), "budget of "+be.Limit) || strings.Contains(err.Error(), "Config") {
		t.Fatalf("got %v; want the %s budget's error, in words", err, budget)
	}
}

// unharmed fails the test unless rt still runs a script after one was
// stopped.
func unharmed(t *testing.T, rt *codemode.Runtime) {
	t.Helper()
	if out := run(t, rt, "return 6 * 7"); string(out.Value) != "42" {
		t.Fatalf("after the budget: %s", out.Value)
	}
}

// An endless loop is stopped at its CPU budget, however it loops, and a
// catch does not keep it going. The budget leaves room for the script that
// shows the runtime unharmed, which a loaded machine under the race
// detector once took past 100ms.
func TestCPUBudget(t *testing.T) {
	set, _ := demoSet(t)
	rt := runtime(t, set, codemode.Config{CPUTime: time.Second})
	for _, script := range []string{
		"for (;;) {}",
		"for (;;) { try { for (;;) {} } catch (e) {} }",
		"const f = () => f(); for (;;) { try { f() } catch (e) {} }",
		"await tools.demo.list_notes(); while (true) {}",
	} {
		_, err := rt.Run(context.Background(), script)
		wantBudget(t, err, "CPUTime")
	}
	unharmed(t, rt)
}

// A loop of calls is stopped at its budget of calls, the calls past it
// never sent.
func TestCallBudget(t *testing.T) {
	set, c := demoSet(t)
	rt := runtime(t, set, codemode.Config{MaxCalls: 5})
	for _, script := range []string{
		"for (;;) await tools.demo.list_notes()",
		"for (;;) tools.demo.list_notes()",
		"await Promise.all(Array.from({length: 50}, () => tools.demo.list_notes()))",
	} {
		out, err := rt.Run(context.Background(), script)
		wantBudget(t, err, "MaxCalls")
		if out.Calls != 5 {
			t.Fatalf("%d calls made; want 5", out.Calls)
		}
	}
	if n := c.get("tools/call"); n > 15 {
		t.Fatalf("the server got %d calls; want at most 5 a run", n)
	}
	unharmed(t, rt)
}

// Output past its budget stops the script; what it printed until then is
// kept, within the budget.
func TestOutputBudget(t *testing.T) {
	rt := runtime(t, tool.Set{}, codemode.Config{MaxOutput: 1024})
	out, err := rt.Run(context.Background(), "for (let i = 0; ; i++) console.log('line', i)")
	wantBudget(t, err, "MaxOutput")
	if len(out.Console) > 1024 || !strings.HasPrefix(out.Console, "line 0\nline 1\n") {
		t.Fatalf("console of %d bytes: %.60q", len(out.Console), out.Console)
	}
	_, err = rt.Run(context.Background(), "return 'x'.repeat(5000)")
	wantBudget(t, err, "MaxOutput")
	unharmed(t, rt)
}

// A script past its time budget is stopped, and so are its calls: the
// server is told.
func TestTimeBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		set, c := demoSet(t)
		rt := codemode.InProcess(runtime(t, set, codemode.Config{Timeout: time.Second}))
		_, err := rt.Run(context.Background(), "await tools.demo.slow_count({to: 5, delay_ms: 1000})")
		wantBudget(t, err, "Timeout")
		synctest.Wait()
		if n := c.get("notifications/cancelled"); n != 1 {
			t.Fatalf("%d cancellations reached the server; want 1", n)
		}
		unharmed(t, rt)
	})
}

// A script is cancelled with its context, and its calls with it, on the
// wire.
func TestCancelReachesServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		set, c := demoSet(t)
		rt := codemode.InProcess(runtime(t, set, codemode.Config{}))
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() {
			_, err := rt.Run(ctx, "await Promise.all([1, 2].map(() => tools.demo.slow_count({to: 50, delay_ms: 1000})))")
			done <- err
		}()
		time.Sleep(1500 * time.Millisecond)
		synctest.Wait() // both calls are on the server, counting
		if n := c.get("tools/call"); n != 2 {
			t.Fatalf("%d calls reached the server; want 2", n)
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v; want the context's error", err)
		}
		synctest.Wait()
		if n := c.get("notifications/cancelled"); n != 2 {
			t.Fatalf("%d cancellations reached the server; want 2", n)
		}
	})
}

// A script that waits on what nothing will settle ends at once with an
// error that says so.
func TestNothingToWaitFor(t *testing.T) {
	rt := runtime(t, tool.Set{}, codemode.Config{})
	_, err := rt.Run(context.Background(), "await new Promise(() => {})")
	var se *codemode.ScriptError
	if !errors.As(err, &se) || !strings.Contains(se.Message, "nothing will settle") {
		t.Fatalf("got %v", err)
	}
}

// Every budget has a default, and none can be lifted.
func TestBudgetsRefusedNegative(t *testing.T) {
	for _, cfg := range []codemode.Config{{Timeout: -1}, {CPUTime: -1}, {Memory: -1}, {MaxCalls: -1}, {MaxInFlight: -1}, {MaxOutput: -1}} {
		if _, err := codemode.New(tool.Set{}, cfg); err == nil || !strings.Contains(err.Error(), "negative") {
			t.Fatalf("%+v: %v", cfg, err)
		}
	}
	var v json.RawMessage
	_ = v
}

// A script that allocates without end is stopped at its memory budget,
// with the memory of the process it runs in bounded: its peak resident
// size grows by little more than the budget, where an interpreter on Go's
// heap grows by gigabytes in the same CPU time. One that catches the
// interpreter's error and goes on allocating gets nothing more, and is
// stopped at its CPU budget. In the host's process the test measures the
// host; in a process of the script's own, the test starts itself again
// (peakChildEnv), for the peak of a process's children is the largest of
// any it had.
func TestMemoryBudget(t *testing.T) {
	t.Run("in-process", func(t *testing.T) {
		memoryBudget(t, codemode.InProcess, func() (int64, bool) {
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
		memoryBudget(t, func(rt *codemode.Runtime) *codemode.Runtime { return rt }, measure, measure)
	})
}

// peakChildEnv marks the test's process started again to measure its
// children.
const peakChildEnv = "CODEMODE_TEST_PEAK"

// inNewProcess runs t again in a new process of the test's, and fails it
// if that fails.
func inNewProcess(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^"+strings.ReplaceAll(t.Name(), "/", "$/^")+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), peakChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	t.Logf("in a new process:\n%s", out)
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("in a new process: %v", err)
	}
}

func memoryBudget(t *testing.T, mode func(*codemode.Runtime) *codemode.Runtime, before, after func() (int64, bool)) {
	budget := 16 << 20
	if raceOn {
		budget = 4 << 20 // filled 4 times sooner
	}
	// The CPU budget is ample: the memory budget must stop the script
	// first, whatever the speed of the machine (and the race detector's).
	rt := mode(runtime(t, tool.Set{}, codemode.Config{Memory: budget, CPUTime: 5 * time.Minute, Timeout: 10 * time.Minute}))
	brief := mode(runtime(t, tool.Set{}, codemode.Config{Memory: budget, CPUTime: time.Second}))
	unharmed(t, rt) // a process of its own has run: its peak is the base
	for _, c := range []struct{ script, budget string }{
		{"const a = []; for (;;) a.push(new Array(100000).fill(1.5))", "Memory"},
		{"const a = []; for (;;) a.push('y'.repeat(1 << 20) + a.length)", "Memory"},
		{"return 'x'.repeat(1e9).length", "Memory"},
		{"const m = new Map(); for (let i = 0; ; i++) m.set(i, {i, s: String(i)})", "Memory"},
		{"const a = []; for (;;) { try { a.push('y'.repeat(1e6) + a.length) } catch (e) {} }", "CPUTime"},
	} {
		start := time.Now()
		base, measured := before()
		r := rt
		if c.budget == "CPUTime" {
			r = brief
		}
		_, err := r.Run(context.Background(), c.script)
		wantBudget(t, err, c.budget)
		if peak, ok := after(); measured && ok {
			grew := peak - base
			t.Logf("%s: peak RSS grew by %d MiB, budget %d MiB (%v)", c.script, grew>>20, budget>>20, time.Since(start))
			if grew > 2*int64(budget)+16<<20 {
				t.Fatalf("%s: peak RSS grew by %d MiB with a budget of %d MiB", c.script, grew>>20, budget>>20)
			}
		}
	}
	unharmed(t, rt)
}

// Calls past the bound in flight wait for a place: the server never has
// more at once.
func TestInFlightBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		set, c := demoSet(t)
		var mu sync.Mutex
		now, most := 0, 0
		h := set.Handler
		set.Handler = tool.HandlerFunc(func(ctx context.Context, name string, args json.RawMessage) (tool.Reply, error) {
			mu.Lock()
			now++
			most = max(most, now)
			mu.Unlock()
			defer func() { mu.Lock(); now--; mu.Unlock() }()
			return h.Call(ctx, name, args)
		})
		rt := codemode.InProcess(runtime(t, set, codemode.Config{MaxInFlight: 2}))
		out := run(t, rt, "return (await Promise.all([1, 2, 3, 4, 5, 6].map(i => tools.demo.slow_count({to: 1, delay_ms: 1000})))).length")
		if string(out.Value) != "6" || most != 2 || c.get("tools/call") != 6 {
			t.Fatalf("%s calls done, %d at most at once (want 2), %d reached the server", out.Value, most, c.get("tools/call"))
		}
	})
}

// Where the program does not serve interpreters of their own, a built-in
// that never yields is still bounded for the host: Run returns at the
// budget the script reached, CPU, time or the context's end, and the
// interpreter's goroutine, interrupted, ends when the built-in returns.
func TestInProcessNativeCallBounded(t *testing.T) {
	for _, c := range []struct {
		cfg    codemode.Config
		cancel bool
		budget string
	}{
		{codemode.Config{CPUTime: time.Second}, false, "CPUTime"},
		{codemode.Config{Timeout: time.Second}, false, "Timeout"},
		{codemode.Config{}, true, ""},
	} {
		synctest.Test(t, func(t *testing.T) {
			hang := make(chan struct{})
			rt := codemode.Hanging(runtime(t, tool.Set{}, c.cfg), hang)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if c.cancel {
				time.AfterFunc(time.Second, cancel)
			}
			_, err := rt.Run(ctx, "__hang(); return 1")
			if c.cancel {
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("got %v; want the context's error", err)
				}
			} else {
				wantBudget(t, err, c.budget)
			}
			close(hang)
			unharmed(t, codemode.InProcess(rt))
		})
	}
}
