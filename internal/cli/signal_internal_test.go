//go:build unix

package cli

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"
)

// A first SIGINT during a turn cancels the turn alone; a second stops the
// command, as does one between turns.
func TestCtrlCCancelsTheTurnThenTheCommand(t *testing.T) {
	wait := func(c context.Context, what string) {
		t.Helper()
		select {
		case <-c.Done():
		case <-time.After(10 * time.Second):
			t.Fatalf("SIGINT did not cancel %s", what)
		}
	}
	interrupt := func() {
		if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
	}
	for _, during := range []bool{true, false} {
		ctx, stop := notifyContext(context.Background())
		turn, end := Turn(ctx)
		interrupt()
		wait(turn, "the turn")
		if ctx.Err() != nil {
			t.Fatal("the first SIGINT stopped the command")
		}
		if !during && !end() {
			t.Error("the turn does not say it was interrupted")
		}
		interrupt()
		wait(ctx, "the command")
		if sig := stoppedBy(ctx); sig == nil || sig.sig != syscall.SIGINT {
			t.Errorf("stopped by %v", sig)
		}
		if during && !end() {
			t.Error("the turn does not say it was interrupted")
		}
		stop()
	}
}
