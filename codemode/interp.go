//go:build (darwin && (amd64 || arm64)) || (freebsd && (amd64 || arm64)) || (linux && (386 || amd64 || arm || arm64 || loong64 || ppc64le || riscv64 || s390x)) || (windows && (amd64 || arm64))

package codemode

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"modernc.org/quickjs"
)

// The interpreter is QuickJS, in Go (modernc.org/quickjs, translated from
// its C): its heap has a hard limit, so a script that allocates without
// end is stopped with the memory it holds bounded, which an interpreter
// allocating on Go's heap cannot do (goja: one 'x'.repeat(1e9) is one
// allocation). It polls its interrupt every 10,000 ticks of bytecode and
// never inside a built-in function, which is why the host also bounds it
// from outside (host.go).

// haveInterpreter says the interpreter builds here.
const haveInterpreter = true

//go:embed prelude.js
var prelude string

// A port is how an interpreter talks to its host: send a message, and
// receive the next (a call's result), waiting for it. Either fails once
// the host is gone.
type port interface {
	send(*message) error
	recv() (*message, error)
}

// interp is the interpreter side of a run: the script in its own
// QuickJS, its host functions, and its job loop, which hands it each
// call's result. It is not safe for concurrent use: one goroutine runs it.
type interp struct {
	p   port
	st  *startParams
	vm  *quickjs.VM
	cpu time.Duration // spent in the interpreter so far

	pending  int   // calls made and not yet settled
	taken    int   // results taken
	finished bool  // the script's promise settled
	lost     error // a send failed: the host is gone
}

// serveInterp runs the script of start against its host, through p, and
// says how it ended with an end message, unless the host is gone. setup,
// if set, is given the interpreter as soon as it exists (to interrupt it
// from another goroutine); it says false if the host no longer wants it.
func serveInterp(p port, start *message, setup func(*quickjs.VM) bool) {
	in := &interp{p: p, st: start.Start}
	err := in.run(start.Body, setup)
	if in.vm != nil {
		in.vm.Close()
	}
	if in.lost != nil {
		return
	}
	end := &message{Kind: kindEnd}
	var se *ScriptError
	switch {
	case err == nil:
	case err == errCPU:
		end.Budget = "CPUTime"
	case err == errMemory:
		end.Budget = "Memory"
	case errors.As(err, &se):
		end.Thrown = &thrownError{Name: cut(se.Name, maxCallName), Message: cut(se.Message, in.st.MaxOutput), Stack: cut(se.Stack, maxStack)}
	default:
		end.Failure = err.Error()
	}
	p.send(end)
}

// run makes the interpreter, evaluates the prelude, starts the script and
// runs its jobs until it has finished and none of its calls is in flight.
func (in *interp) run(script string, setup func(*quickjs.VM) bool) error {
	vm, err := quickjs.NewVM()
	if err != nil {
		return fmt.Errorf("starting the interpreter: %w", err)
	}
	in.vm = vm
	if setup != nil && !setup(vm) {
		return errHostGone
	}
	vm.SetMemoryLimit(uintptr(in.st.Memory))
	for name, f := range map[string]quickjs.HostFunc{
		"__mcpbridge_call":  in.call,
		"__mcpbridge_print": in.print,
		"__mcpbridge_done":  in.done,
	} {
		if err := vm.RegisterHostFunc(name, f); err != nil {
			return fmt.Errorf("starting the interpreter: %w", err)
		}
	}
	err = in.enter(func() error {
		if _, err := vm.Eval(prelude+"("+string(in.st.Manifest)+")", quickjs.EvalGlobal); err != nil {
			return fmt.Errorf("the prelude: %w", err)
		}
		_, err := vm.Call("__mcpbridge_run", script)
		return err
	})
	if err != nil {
		return err
	}
	for {
		if err := in.enter(func() error { _, err := vm.ExecutePendingJobs(); return err }); err != nil {
			return err
		}
		if in.pending == 0 {
			if in.finished {
				return nil
			}
			return &ScriptError{Name: "Error", Message: "the script waits on a promise that nothing will settle (no tool call is in flight)"}
		}
		if err := in.send(&message{Kind: kindWait, ID: in.taken}); err != nil {
			return err
		}
		m, err := in.p.recv()
		if err != nil {
			in.lost = err
			return err
		}
		in.taken++
		in.pending--
		images := ""
		if len(m.Images) > 0 {
			data, _ := json.Marshal(m.Images)
			images = string(data)
		}
		err = in.enter(func() error {
			_, err := vm.Call("__mcpbridge_settle", m.ID, m.OK, m.Text, m.Body, images)
			return err
		})
		if err != nil {
			return err
		}
	}
}

// send sends m to the host; once a send failed, the interpreter stops.
func (in *interp) send(m *message) error {
	if in.lost != nil {
		return in.lost
	}
	if err := in.p.send(m); err != nil {
		in.lost = err
		in.vm.Interrupt()
		return err
	}
	return nil
}

// enter runs f, which runs the interpreter, within what is left of the
// CPU budget, and says why the interpreter stopped if it was stopped.
func (in *interp) enter(f func() error) error {
	left := in.st.CPUTime - in.cpu
	if left <= 0 {
		return errCPU
	}
	in.vm.SetEvalTimeout(left)
	start := time.Now()
	err := f()
	in.cpu += time.Since(start)
	var qe *quickjs.Error
	switch {
	case in.lost != nil:
		return in.lost
	case err == nil:
		return nil
	case interrupted(err):
		return errCPU
	case outOfMemory(err):
		return errMemory
	case errors.As(err, &qe):
		return &ScriptError{Name: qe.Name, Message: qe.Message, Stack: qe.Stack}
	}
	return err
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

// call starts a call: (id, index, name, args, base64). The host makes it
// and sends its result; the script's promise settles when the loop takes
// it.
func (in *interp) call(args []any) (any, error) {
	id, _ := arg[int](args, 0)
	index, _ := arg[int](args, 1)
	name, _ := arg[string](args, 2)
	params, _ := arg[string](args, 3)
	data, _ := arg[bool](args, 4)
	if len(params) > maxArgs {
		return nil, fmt.Errorf("%s: the arguments are %s, more than a call may send (%s)", name, size(len(params)), size(maxArgs))
	}
	if len(name) > in.st.MaxName {
		return nil, fmt.Errorf("a tool name of %s: no tool has one", size(len(name)))
	}
	in.pending++
	in.send(&message{Kind: kindCall, ID: id, Index: index, Name: name, Data: data, Body: params})
	return nil, nil
}

// print is console.log's end: a line of output, cut past the budget (the
// host stops the script then).
func (in *interp) print(args []any) (any, error) {
	line, _ := arg[string](args, 0)
	in.send(&message{Kind: kindPrint, Body: cut(line, in.st.MaxOutput)})
	return nil, nil
}

// done takes the script's outcome: (true, value, "", "", "", "",
// images) or (false, "", name, message, stack, tool).
func (in *interp) done(args []any) (any, error) {
	if in.finished {
		return nil, nil
	}
	in.finished = true
	m := &message{Kind: kindDone}
	if ok, _ := arg[bool](args, 0); ok {
		value, _ := arg[string](args, 1)
		m.OK, m.Size = true, len(value)
		if len(value) <= in.st.MaxOutput {
			m.Body = value
		}
		if images, _ := arg[string](args, 6); images != "" && len(images) <= 16<<10 {
			json.Unmarshal([]byte(images), &m.Images)
			if len(m.Images) > maxReturnedImages {
				m.Images = m.Images[:maxReturnedImages]
			}
		}
	} else {
		e := &thrownError{}
		e.Name, _ = arg[string](args, 2)
		e.Message, _ = arg[string](args, 3)
		e.Stack, _ = arg[string](args, 4)
		e.Tool, _ = arg[string](args, 5)
		e.Name, e.Message, e.Stack, e.Tool = cut(e.Name, maxCallName), cut(e.Message, in.st.MaxOutput), cut(e.Stack, maxStack), cut(e.Tool, maxCallName)
		m.Thrown = e
	}
	in.send(m)
	return nil, nil
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
