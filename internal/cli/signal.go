package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
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
// Like signal.NotifyContext, but the cause says which signal it was. Later
// signals are ignored until then: stopping the servers is bounded, and
// dying at once would leave them running.
func notifyContext(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, stopSignals...)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			s, _ := sig.(syscall.Signal)
			cancel(&signalError{s})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// stoppedBy returns the signal that cancelled ctx, or nil.
func stoppedBy(ctx context.Context) *signalError {
	var se *signalError
	if errors.As(context.Cause(ctx), &se) {
		return se
	}
	return nil
}
