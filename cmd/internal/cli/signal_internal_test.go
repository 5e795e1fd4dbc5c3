//go:build unix

package cli

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/tool"
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

// A server's question asked during a turn that Ctrl-C cancels is
// cancelled with it: the next line typed is the chat's, not its answer.
func TestQuestionEndsWithItsTurn(t *testing.T) {
	ctx, stop := notifyContext(context.Background())
	defer stop()
	lines := make(chan string) // nothing typed yet
	a := &asker{lines: func() <-chan string { return lines }, w: io.Discard, turn: turnsKey.Value(ctx).current}
	turn, end := Turn(ctx)
	defer end()
	asked := make(chan tool.Answer, 1)
	go func() {
		answer, _ := a.elicit(context.Background(), &tool.Elicitation{Server: "s", Message: "Your name?", Schema: json.RawMessage(`{"type":"object"}`)})
		asked <- answer
	}()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	<-turn.Done()
	select {
	case answer := <-asked:
		if answer.Action != "cancel" {
			t.Errorf("answered %+v, want cancel", answer)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the question still waits for a line once its turn is cancelled")
	}
}
