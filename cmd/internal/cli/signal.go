package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/mcpbridge/mcpbridge/internal/ctxkey"
)

// stopSignals end a command: Ctrl-C, a polite kill, and SIGHUP, which a
// closed terminal sends. The servers run in process groups of their own,
// so none of these reach them: the command's deferred Close stops them.
var stopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// A signalError is the cause of a context a stop signal cancelled.
type signalError struct{ sig syscall.Signal }

func (e *signalError) Error() string { return "interrupted by " + signalName(e.sig) }

// exitCode is the shells' status for a process ended by the signal.
func (e *signalError) exitCode() int { return 128 + int(e.sig) }

func signalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return fmt.Sprintf("signal %d", int(sig))
}

// notifyContext returns a context cancelled, with a *signalError as its
// cause, by the first stop signal, and a function that stops listening.
// Like signal.NotifyContext, but the cause says which signal it was, and
// a SIGINT during a [Turn] cancels that turn alone. Later signals are
// ignored until then: stopping the servers is bounded, and dying at once
// would leave them running.
func notifyContext(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	turns := &turns{}
	ctx = turnsKey.With(ctx, turns)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, stopSignals...)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-ch:
				s, _ := sig.(syscall.Signal)
				if s == syscall.SIGINT && turns.interrupt() {
					continue
				}
				cancel(&signalError{s})
				return
			case <-done:
				return
			}
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// turns is the turn a command runs, which the next SIGINT cancels alone.
type turns struct {
	mu     sync.Mutex
	cancel context.CancelFunc // nil when no turn runs, or after its SIGINT
	done   <-chan struct{}    // the running turn's Done, or nil
	hit    bool               // the turn was interrupted
}

var turnsKey = ctxkey.New[*turns]("cli turns")

// interrupt cancels the running turn, and reports whether one ran.
func (t *turns) interrupt() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cancel == nil {
		return false
	}
	t.cancel()
	t.cancel, t.hit = nil, true
	return true
}

// Turn returns a context for one turn of an interactive command (a chat's
// exchange with the model), which the first Ctrl-C cancels alone, the
// command going on: a second Ctrl-C during the turn, or one between turns,
// stops the command as a signal does. end releases the turn and reports
// whether Ctrl-C cancelled it. Outside a command's context, the turn is
// ctx's.
func Turn(ctx context.Context) (turn context.Context, end func() (interrupted bool)) {
	turn, cancel := context.WithCancel(ctx)
	t := turnsKey.Value(ctx)
	if t == nil {
		return turn, func() bool { cancel(); return false }
	}
	t.mu.Lock()
	t.cancel, t.done, t.hit = cancel, turn.Done(), false
	t.mu.Unlock()
	return turn, func() bool {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.cancel, t.done = nil, nil
		cancel()
		return t.hit
	}
}

// current returns the running turn's Done channel, or nil when no turn
// runs (t may be nil: a command outside [Main]).
func (t *turns) current() <-chan struct{} {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.done
}

// stoppedBy returns the signal that cancelled ctx, or nil.
func stoppedBy(ctx context.Context) *signalError {
	var se *signalError
	if errors.As(context.Cause(ctx), &se) {
		return se
	}
	return nil
}
