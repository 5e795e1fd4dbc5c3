package codemode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// An engine runs a script's interpreter for the host: in a process of
// its own (child, where the program serves them: [ServeIfChild]), else on
// a goroutine of this one (local).
type engine interface {
	// messages are the interpreter's, closed once it ended.
	messages() <-chan *message
	// give hands the interpreter a call's result, without waiting.
	give(*message)
	// stop ends the interpreter now if it has not ended, and returns once
	// it has, or was left behind. Called first once messages closed
	// without an end message, its error says why the interpreter ended
	// so (its process died); otherwise it means nothing.
	stop() error
}

// The reasons an interpreter stops of itself, or the system stops it.
var (
	errCPU      = errors.New("the CPU budget")
	errMemory   = errors.New("the memory budget")
	errCPULimit = errors.New("the system's CPU limit")
)

// outerGrace is how far past its CPU budget the host lets the
// interpreter run before it stops it from outside: the interpreter stops
// a script itself at the budget, unless a built-in that never yields
// holds it.
const outerGrace = 500 * time.Millisecond

// run is one run of a script, on the host's side: the calls, the
// console, the budgets, and the interpreter's engine.
type run struct {
	r      *Runtime
	ctx    context.Context
	cancel context.CancelCauseFunc
	eng    engine

	calls
	console strings.Builder

	// stopped is why the host stopped the script (a budget).
	stopped error
	// finished says the script's promise settled: ok, with value (JSON,
	// or "" for undefined), or thrown.
	finished bool
	value    string
	images   []int // the ids of the images the value holds
	thrown   *ScriptError

	// The interpreter is busy from its start until it waits with every
	// result it was given taken, and again from the next result: its
	// busy time is what the host holds to the CPU budget from outside.
	given     int
	busy      bool
	busySince time.Time
	busyTotal time.Duration
	watchdog  *time.Timer
}

func (r *Runtime) run(ctx context.Context, script string) (*Output, error) {
	ctx, cancelTimeout := context.WithTimeoutCause(ctx, r.cfg.Timeout, &BudgetError{Budget: "Timeout", Limit: r.cfg.Timeout.String()})
	defer cancelTimeout()
	ctx, cancel := context.WithCancelCause(ctx)
	s := &run{r: r, ctx: ctx, cancel: cancel}
	s.calls.init(ctx, r)
	err := s.start(script)
	if err == nil {
		err = s.loop()
		s.eng.stop()
		s.watchdog.Stop()
	}
	if err != nil {
		cancel(err)
	}
	cancel(nil)
	s.calls.wait()
	return s.output(), s.outcome(err)
}

// start starts the interpreter, in a process of its own where the
// program serves them, and gives it the script.
func (s *run) start(script string) error {
	manifest, err := json.Marshal(s.r.api.Manifest())
	if err != nil {
		return fmt.Errorf("codemode: %w", err)
	}
	cfg := s.r.cfg
	start := &message{Kind: kindStart, Body: script, Start: &startParams{
		Manifest: manifest, Memory: cfg.Memory, CPUTime: cfg.CPUTime, Timeout: cfg.Timeout,
		MaxOutput: cfg.MaxOutput, MaxCalls: cfg.MaxCalls, Results: cfg.MaxResultBytes, MaxName: s.r.maxName,
	}}
	if s.r.isolated {
		s.eng, err = startChild(start)
	} else {
		s.eng, err = startLocal(start, s.r.hang)
	}
	if err != nil {
		return err
	}
	s.busy, s.busySince = true, time.Now()
	s.watchdog = time.NewTimer(cfg.CPUTime + outerGrace)
	return nil
}

// loop takes the interpreter's messages and the calls' results until the
// interpreter ends, the host stops it, or ctx ends.
func (s *run) loop() error {
	for {
		select {
		case m, ok := <-s.eng.messages():
			if !ok {
				return s.ended()
			}
			if end, err := s.handle(m); end {
				return err
			}
			if s.stopped != nil {
				return s.stopped
			}
		case c := <-s.results:
			s.given++
			s.eng.give(&message{Kind: kindResult, ID: c.id, OK: c.ok, Text: c.text, Body: c.payload, Images: c.images})
			if !s.busy {
				s.busy, s.busySince = true, time.Now()
				s.watchdog.Reset(s.r.cfg.CPUTime + outerGrace - s.busyTotal)
			}
		case <-s.watchdog.C:
			return s.cpuSpent()
		case <-s.ctx.Done():
			return context.Cause(s.ctx)
		}
	}
}

// ended says why the interpreter ended without an end message: the system
// stopped its process at a budget, or it died.
func (s *run) ended() error {
	switch err := s.eng.stop(); {
	case errors.Is(err, errCPULimit):
		return s.cpuSpent()
	case errors.Is(err, errMemory):
		return s.memorySpent()
	case err != nil:
		return err
	}
	return errors.New("codemode: the interpreter ended without a word")
}

// handle takes one message of the interpreter, and says whether it was
// the last, with the error the interpreter ended with. The interpreter's
// messages are held to what it may send, as anything is that comes from
// another process.
func (s *run) handle(m *message) (end bool, err error) {
	cfg := s.r.cfg
	switch m.Kind {
	case kindCall:
		if s.made == cfg.MaxCalls {
			s.stop(&BudgetError{Budget: "MaxCalls", Limit: fmt.Sprintf("%d calls", cfg.MaxCalls)})
			return false, nil
		}
		if len(m.Body) > maxArgs || len(m.Name) > s.r.maxName {
			return true, errors.New("codemode: the interpreter sent a call past its bounds")
		}
		s.launch(m.ID, m.Index, m.Name, json.RawMessage(m.Body), m.Data)
	case kindPrint:
		if s.console.Len()+len(m.Body)+1 > cfg.MaxOutput {
			s.stop(&BudgetError{Budget: "MaxOutput", Limit: size(cfg.MaxOutput)})
			return false, nil
		}
		s.console.WriteString(m.Body)
		s.console.WriteByte('\n')
	case kindDone:
		s.done(m)
	case kindWait:
		if m.ID == s.given && s.busy {
			s.busy = false
			s.busyTotal += time.Since(s.busySince)
			s.watchdog.Stop()
		}
	case kindEnd:
		switch {
		case m.Budget == "CPUTime":
			return true, s.cpuSpent()
		case m.Budget == "Memory":
			return true, s.memorySpent()
		case m.Thrown != nil:
			return true, s.scriptError(m.Thrown)
		case m.Failure != "":
			return true, fmt.Errorf("codemode: %s", m.Failure)
		}
		return true, nil
	default:
		return true, fmt.Errorf("codemode: the interpreter sent a message of kind %q", m.Kind)
	}
	return false, nil
}

// done takes the script's outcome, once.
func (s *run) done(m *message) {
	if s.finished {
		return
	}
	s.finished = true
	if m.OK {
		if m.Size+s.console.Len() > s.r.cfg.MaxOutput {
			s.stop(&BudgetError{Budget: "MaxOutput", Limit: size(s.r.cfg.MaxOutput)})
			return
		}
		s.value = m.Body
		s.images = m.Images[:min(len(m.Images), maxReturnedImages)]
		return
	}
	if m.Thrown == nil {
		s.thrown = &ScriptError{Name: "Error", Message: "the script threw a value that cannot be read"}
		return
	}
	e := s.scriptError(m.Thrown)
	if e.Name == "InternalError" && e.Message == "out of memory" || e.Name == "null" {
		s.stop(s.memorySpent())
	}
	s.thrown = e
}

// scriptError is what the script threw, the call's failure in its chain
// when it was a tool's.
func (s *run) scriptError(t *thrownError) *ScriptError {
	e := &ScriptError{Name: t.Name, Message: cut(t.Message, s.r.cfg.MaxOutput), Stack: cut(t.Stack, maxStack), Tool: t.Tool}
	if e.Tool != "" {
		e.Err = s.failure(e.Tool)
	}
	return e
}

// stop stops the script for a budget reached; the script cannot catch
// it.
func (s *run) stop(err error) {
	if s.stopped == nil {
		s.stopped = err
	}
}

func (s *run) cpuSpent() error {
	return &BudgetError{Budget: "CPUTime", Limit: s.r.cfg.CPUTime.String()}
}

func (s *run) memorySpent() error {
	return &BudgetError{Budget: "Memory", Limit: size(s.r.cfg.Memory)}
}

// output is what the run gave back.
func (s *run) output() *Output {
	out := &Output{Console: s.console.String(), Calls: s.made, Summary: s.summary()}
	if s.value != "" {
		out.Value = json.RawMessage(s.value)
		out.Images = s.returned(s.images)
	}
	return out
}

// outcome is the run's error: the loop's, else what the script threw.
func (s *run) outcome(err error) error {
	if err != nil {
		return err
	}
	if s.thrown != nil {
		return s.thrown
	}
	return nil
}

// cut is s, cut at n bytes with a mark.
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
