//go:build (darwin && (amd64 || arm64)) || (freebsd && (amd64 || arm64)) || (linux && (386 || amd64 || arm || arm64 || loong64 || ppc64le || riscv64 || s390x)) || (windows && (amd64 || arm64))

package codemode

import (
	"sync"
	"time"

	"modernc.org/quickjs"
)

// local is an interpreter on a goroutine of this process, where the
// program does not serve interpreters of their own ([ServeIfChild]). The
// host interrupts it to stop it, which takes at the interpreter's next
// poll; a built-in that never returns to it (one long indexOf) holds its
// goroutine past every budget, so the host waits for it only stopGrace
// and leaves it behind: Run returns within its budgets, and that
// goroutine ends, its interpreter closed and its heap freed, when the
// built-in returns.
type local struct {
	events  chan *message // from the interpreter, closed when it ended
	inbox   chan *message // to it: room for a result of every call
	stopped chan struct{} // closed by stop
	ended   chan struct{} // closed when its goroutine ends

	mu     sync.Mutex
	vm     *quickjs.VM
	halted bool

	// hang, set by tests, gives the script a host function __hang that
	// waits until it is closed: a built-in that never yields, which a
	// testing/synctest bubble can wait out.
	hang <-chan struct{}
}

// stopGrace is how long stop waits for an interrupted interpreter to end.
const stopGrace = 250 * time.Millisecond

func startLocal(start *message, hang <-chan struct{}) (engine, error) {
	l := &local{
		events:  make(chan *message),
		inbox:   make(chan *message, start.Start.MaxCalls),
		stopped: make(chan struct{}),
		ended:   make(chan struct{}),
		hang:    hang,
	}
	go func() {
		defer close(l.ended)
		defer close(l.events)
		serveInterp(l, start, l.setup)
	}()
	return l, nil
}

// setup keeps vm to interrupt, unless the host stopped already.
func (l *local) setup(vm *quickjs.VM) bool {
	if l.hang != nil {
		vm.RegisterHostFunc("__hang", func([]any) (any, error) { <-l.hang; return nil, nil })
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.vm = vm
	return !l.halted
}

// The interpreter's side.

func (l *local) send(m *message) error {
	select {
	case l.events <- m:
		return nil
	case <-l.stopped:
		return errHostGone
	}
}

func (l *local) recv() (*message, error) {
	select {
	case m := <-l.inbox:
		return m, nil
	case <-l.stopped:
		return nil, errHostGone
	}
}

// The host's side.

func (l *local) messages() <-chan *message { return l.events }

func (l *local) give(m *message) { l.inbox <- m }

func (l *local) stop() error {
	l.mu.Lock()
	if !l.halted {
		l.halted = true
		close(l.stopped)
		if l.vm != nil {
			l.vm.Interrupt()
		}
	}
	l.mu.Unlock()
	t := time.NewTimer(stopGrace)
	defer t.Stop()
	select {
	case <-l.ended:
	case <-t.C:
	}
	return nil
}
