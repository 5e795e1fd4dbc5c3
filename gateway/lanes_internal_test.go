package gateway

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
)

// A heldWriter is a connection's writer whose writes wait until released.
type heldWriter struct {
	*httptest.ResponseRecorder
	mu      sync.Mutex
	release chan struct{}
	writes  int
}

func (w *heldWriter) Write(p []byte) (int, error) {
	<-w.release
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	return w.ResponseRecorder.Write(p)
}

// A lane queues what go-sdk writes without waiting on the client, in
// order; its client falls behind once more than the bound is queued while
// the lane's writer waits on the connection, and then loses the stream:
// what is queued is dropped and every write after fails. Over the bound
// while its writer holds nothing, a write waits for the writer to take
// what is queued, not for the client.
func TestALaneHoldsItsBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &heldWriter{ResponseRecorder: httptest.NewRecorder(), release: make(chan struct{})}
		fell := 0
		l := newLane(w, 100, func() { fell++ })
		write := func(n int) error {
			_, err := l.Write([]byte(strings.Repeat("x", n)))
			return err
		}
		if err := write(50); err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // the writer holds the 50 bytes, waiting on the connection
		for _, n := range []int{60, 60} {
			if err := write(n); err != nil {
				t.Fatalf("a write of %d bytes: %v", n, err)
			}
		}
		if err := write(10); !errors.Is(err, errFellBehind) || fell != 1 {
			t.Fatalf("a write with 120 bytes queued while the writer waits: %v, fell %d times", err, fell)
		}
		l.mu.Lock()
		if l.queued != 0 {
			t.Errorf("%d bytes still queued for a client that fell behind", l.queued)
		}
		l.mu.Unlock()
		close(w.release)
		l.finish()
		if w.writes != 1 {
			t.Errorf("%d writes reached the connection, want the one under way", w.writes)
		}
		if err := write(1); !errors.Is(err, errFellBehind) || fell != 1 {
			t.Errorf("a write after the fall: %v, fell %d times", err, fell)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		w := &heldWriter{ResponseRecorder: httptest.NewRecorder(), release: make(chan struct{})}
		close(w.release) // a client that reads
		l := newLane(w, 4096, func() { t.Error("a client that reads fell behind") })
		l.Header().Set("Content-Type", "text/event-stream")
		l.WriteHeader(http.StatusOK)
		for i := range 50 {
			if _, err := l.Write([]byte(strings.Repeat(string(rune('a'+i%26)), 60))); err != nil {
				t.Fatal(err)
			}
		}
		l.Flush()
		l.finish()
		if got := w.Body.Len(); got != 50*60 || w.Code != http.StatusOK || w.Header().Get("Content-Type") != "text/event-stream" || !w.Flushed {
			t.Errorf("the connection got %d bytes, status %d, %v, flushed %v", got, w.Code, w.Header(), w.Flushed)
		}
		if body := w.Body.String(); body[:60] != strings.Repeat("a", 60) || body[60*49:] != strings.Repeat("x", 60) {
			t.Error("the bytes came out of order")
		}
	})
}

// A server's queue of notices holds its bound: a notice that comes while
// the queue holds more is dropped, and the drops are logged; a fence
// returns once what came before it was passed on.
func TestPassOnDropsPastItsBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logs := &logRecords{}
		q := newPassOn("notes", 100, slog.New(logs))
		defer q.close()
		held := make(chan struct{})
		var passed []int
		q.push(10, func() { <-held })
		synctest.Wait() // the queue's goroutine holds the first
		for i, size := range []int{60, 60, 20} {
			q.push(size, func() { passed = append(passed, i) })
		}
		close(held)
		q.fence(context.Background())
		if want := []int{0, 2}; len(passed) != 2 || passed[0] != 0 || passed[1] != 2 {
			t.Errorf("passed on %v, want %v: the second is over the bound", passed, want)
		}
		synctest.Wait() // the queue is empty: the drops are told
		if got := logs.messages(); len(got) != 2 || !strings.Contains(got[0], "dropped") || !strings.Contains(got[1], "dropped=1") {
			t.Errorf("logged %q", got)
		}
	})
}

// logRecords is a slog.Handler that keeps each record's message and attrs.
type logRecords struct {
	mu   sync.Mutex
	msgs []string
}

func (r *logRecords) Enabled(context.Context, slog.Level) bool { return true }
func (r *logRecords) Handle(_ context.Context, rec slog.Record) error {
	msg := rec.Message
	rec.Attrs(func(a slog.Attr) bool { msg += " " + a.String(); return true })
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, msg)
	return nil
}
func (r *logRecords) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *logRecords) WithGroup(string) slog.Handler      { return r }
func (r *logRecords) messages() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.msgs...)
}
