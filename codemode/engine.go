//go:build (darwin && (amd64 || arm64)) || (freebsd && (amd64 || arm64)) || (linux && (386 || amd64 || arm || arm64 || loong64 || ppc64le || riscv64 || s390x)) || (windows && (amd64 || arm64))

package codemode

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"modernc.org/quickjs"
)

// The interpreter is QuickJS, in Go (modernc.org/quickjs, translated from
// its C): its heap has a hard limit, so a script that allocates without
// end is stopped in process with the host's memory bounded, which an
// interpreter allocating on Go's heap cannot do (goja: one
// 'x'.repeat(1e9) is one allocation).

//go:embed prelude.js
var prelude string

// run is one run of a script: its interpreter, on the goroutine that
// called Run (the interpreter is not safe for concurrent use), and its
// calls, each on a goroutine of its own that hands its result back.
type run struct {
	r      *Runtime
	ctx    context.Context
	cancel context.CancelCauseFunc
	vm     *quickjs.VM

	calls
	console strings.Builder
	cpu     time.Duration // spent in the interpreter so far

	unwatch func() bool // stops the interruption of the interpreter when ctx ends

	// stopped is why the host stopped the script (a budget), set on the
	// interpreter's goroutine before it interrupts the script.
	stopped error
	// finished says the script's promise settled: ok, with value (JSON,
	// or "" for undefined), or thrown.
	finished bool
	value    string
	thrown   *ScriptError
}

func (r *Runtime) run(ctx context.Context, script string) (*Output, error) {
	ctx, cancelTimeout := context.WithTimeoutCause(ctx, r.cfg.Timeout, &BudgetError{Budget: "Timeout", Limit: r.cfg.Timeout.String()})
	defer cancelTimeout()
	ctx, cancel := context.WithCancelCause(ctx)
	s := &run{r: r, ctx: ctx, cancel: cancel}
	s.calls.init(ctx, r)
	defer s.calls.wait()
	defer cancel(nil)
	err := s.start(script)
	if err == nil {
		err = s.loop()
	}
	return s.output(), s.outcome(err)
}

// start makes the interpreter, evaluates the prelude and starts the
// script.
func (s *run) start(script string) error {
	vm, err := quickjs.NewVM()
	if err != nil {
		return fmt.Errorf("codemode: starting the interpreter: %w", err)
	}
	s.vm = vm
	s.unwatch = context.AfterFunc(s.ctx, vm.Interrupt)
	vm.SetMemoryLimit(uintptr(s.r.cfg.Memory))
	for name, f := range map[string]quickjs.HostFunc{
		"__mcpbridge_call":  s.call,
		"__mcpbridge_print": s.print,
		"__mcpbridge_done":  s.done,
	} {
		if err := vm.RegisterHostFunc(name, f); err != nil {
			return fmt.Errorf("codemode: starting the interpreter: %w", err)
		}
	}
	manifest, err := json.Marshal(s.r.api.Manifest())
	if err != nil {
		return fmt.Errorf("codemode: %w", err)
	}
	return s.enter(func() error {
		if _, err := vm.Eval(prelude+"("+string(manifest)+")", quickjs.EvalGlobal); err != nil {
			return fmt.Errorf("codemode: the prelude: %w", err)
		}
		_, err := vm.Call("__mcpbridge_run", script)
		return err
	})
}

// loop runs the script's jobs and hands it each call's result, until the
// script has finished and no call of its is in flight.
func (s *run) loop() error {
	for {
		if err := s.enter(func() error { _, err := s.vm.ExecutePendingJobs(); return err }); err != nil {
			return err
		}
		if s.stopped != nil {
			return s.stopped
		}
		if s.inFlight == 0 {
			if s.finished {
				return nil
			}
			return &ScriptError{Name: "Error", Message: "the script waits on a promise that nothing will settle (no tool call is in flight)"}
		}
		select {
		case c := <-s.results:
			s.inFlight--
			if c.held {
				<-s.sem // its place is free once its result is the script's
			}
			err := s.enter(func() error {
				_, err := s.vm.Call("__mcpbridge_settle", c.id, c.ok, c.payload)
				return err
			})
			if err != nil {
				return err
			}
		case <-s.ctx.Done():
			return context.Cause(s.ctx)
		}
	}
}

// enter runs f, which runs the interpreter, within what is left of the
// CPU budget, and says why the interpreter stopped if it was stopped.
func (s *run) enter(f func() error) error {
	if err := context.Cause(s.ctx); err != nil {
		return err
	}
	left := s.r.cfg.CPUTime - s.cpu
	if left <= 0 {
		return s.cpuSpent()
	}
	s.vm.SetEvalTimeout(left)
	start := time.Now()
	err := f()
	s.cpu += time.Since(start)
	switch {
	case s.stopped != nil:
		return s.stopped
	case context.Cause(s.ctx) != nil:
		return context.Cause(s.ctx)
	case err == nil:
		return nil
	case interrupted(err):
		return s.cpuSpent()
	case outOfMemory(err):
		return s.memorySpent()
	}
	var qe *quickjs.Error
	if errors.As(err, &qe) {
		return &ScriptError{Name: qe.Name, Message: qe.Message, Stack: qe.Stack}
	}
	return err
}

func (s *run) cpuSpent() error {
	return &BudgetError{Budget: "CPUTime", Limit: s.r.cfg.CPUTime.String()}
}

func (s *run) memorySpent() error {
	return &BudgetError{Budget: "Memory", Limit: size(s.r.cfg.Memory)}
}

// interrupted reports whether err is the interpreter's interruption: its
// CPU budget ran out, or the host stopped it.
func interrupted(err error) bool {
	var qe *quickjs.Error
	return errors.As(err, &qe) && qe.Name == "InternalError" && qe.Message == "interrupted"
}

// outOfMemory reports whether err is the interpreter's heap full: the
// error it throws, or none at all when it could not even make that one.
func outOfMemory(err error) bool {
	var qe *quickjs.Error
	if !errors.As(err, &qe) {
		return false
	}
	return qe.Name == "InternalError" && qe.Message == "out of memory" || qe.Name == "" && qe.Message == "" && qe.Error() == "null"
}

// stop stops the script for a budget reached; the script cannot catch
// it.
func (s *run) stop(err error) {
	if s.stopped == nil {
		s.stopped = err
	}
	s.vm.Interrupt()
}

// print is console.log's end: a line of output, within the budget.
func (s *run) print(args []any) (any, error) {
	line, _ := arg[string](args, 0)
	if s.console.Len()+len(line)+1 > s.r.cfg.MaxOutput {
		s.stop(&BudgetError{Budget: "MaxOutput", Limit: size(s.r.cfg.MaxOutput)})
		return nil, nil
	}
	s.console.WriteString(line)
	s.console.WriteByte('\n')
	return nil, nil
}

// done takes the script's outcome: (true, value) or (false, "", name,
// message, stack, tool).
func (s *run) done(args []any) (any, error) {
	if s.finished {
		return nil, nil
	}
	s.finished = true
	if ok, _ := arg[bool](args, 0); ok {
		s.value, _ = arg[string](args, 1)
		if len(s.value)+s.console.Len() > s.r.cfg.MaxOutput {
			s.value = ""
			s.stop(&BudgetError{Budget: "MaxOutput", Limit: size(s.r.cfg.MaxOutput)})
		}
		return nil, nil
	}
	e := &ScriptError{}
	e.Name, _ = arg[string](args, 2)
	e.Message, _ = arg[string](args, 3)
	e.Stack, _ = arg[string](args, 4)
	e.Tool, _ = arg[string](args, 5)
	e.Message = cut(e.Message, s.r.cfg.MaxOutput)
	e.Stack = cut(e.Stack, 4096)
	if e.Tool != "" {
		e.Err = s.failure(e.Tool)
	}
	if e.Name == "InternalError" && e.Message == "out of memory" || e.Name == "null" {
		s.stop(s.memorySpent())
	}
	s.thrown = e
	return nil, nil
}

// output is what the run gave back.
func (s *run) output() *Output {
	out := &Output{Console: s.console.String(), Calls: s.made, Summary: s.summary()}
	if s.value != "" {
		out.Value = json.RawMessage(s.value)
	}
	return out
}

// outcome is the run's error: the loop's, else what the script threw.
func (s *run) outcome(err error) error {
	if s.vm != nil {
		s.unwatch()
		s.vm.Close() // Interrupt may still run, and does nothing then
	}
	if err != nil {
		s.cancel(err)
		return err
	}
	if s.thrown != nil {
		return s.thrown
	}
	return nil
}

// arg is the i-th argument of a host function, as a T.
func arg[T any](args []any, i int) (T, bool) {
	var zero T
	if i >= len(args) {
		return zero, false
	}
	v, ok := args[i].(T)
	return v, ok
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// size says a number of bytes as a person reads it.
func size(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// call starts a call: (id, index, name, args, base64). It runs on a
// goroutine of its own, within the calls in flight; its result comes back
// to the loop.
func (s *run) call(args []any) (any, error) {
	id, _ := arg[int](args, 0)
	index, _ := arg[int](args, 1)
	name, _ := arg[string](args, 2)
	params, _ := arg[string](args, 3)
	images, _ := arg[bool](args, 4)
	if s.made == s.r.cfg.MaxCalls {
		s.stop(&BudgetError{Budget: "MaxCalls", Limit: fmt.Sprintf("%d calls", s.r.cfg.MaxCalls)})
		return nil, nil
	}
	if len(params) > maxArgs {
		return nil, fmt.Errorf("%s: the arguments are %s, more than a call may send (%s)", name, size(len(params)), size(maxArgs))
	}
	s.inFlight++
	s.launch(id, index, name, json.RawMessage(params), images)
	return nil, nil
}
