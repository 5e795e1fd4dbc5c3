package mcpclient

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"
)

// A session that ends because the provider is closing was not lost: the
// watcher reports nothing, though it may wake to find both the stop and the
// session's end (as under load, when close has ended the session before the
// watcher runs). Each round is a fair coin for a select that takes either.
func TestWatchDoesNotReportAClosingSessionLost(t *testing.T) {
	for range 64 {
		var reported []State
		v := &supervisor{
			name:      "notes",
			logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
			reconnect: &Reconnect{MinDelay: time.Hour},
			onState:   func(s State, _ error) { reported = append(reported, s) },
			changed:   make(chan struct{}),
		}
		life, stop := context.WithCancel(context.Background())
		stop()
		sess := &session{done: make(chan struct{})}
		close(sess.done)
		v.bg.Add(1)
		v.watch(life, sess)
		if len(reported) != 0 {
			t.Fatalf("the watcher of a closing provider reported %v", reported)
		}
	}
}
