package stdio

import (
	"errors"
	"io"
	"os"
	"sync"
	"time"
)

// stdoutReader reads the server's stdout. Once the server has exited, the
// reaper sets a read deadline: whatever is still in the pipe is drained,
// but a pipe held open by a process that escaped the group, and silent for
// drainQuantum, counts as EOF instead of blocking Read until Close.
//
// A caller that reads in its turn (see Conn.Await) sets a deadline of its
// own, which ends its turn with errYield instead, nothing lost.
type stdoutReader struct {
	f   *os.File
	raw rawRead // see read

	mu    sync.Mutex // guards base and until, and orders their deadlines
	base  time.Time  // the reaper's deadline, or a drain's; zero: none
	until time.Time  // the end of a caller's turn; zero: the reader's turn
}

func (r *stdoutReader) Read(p []byte) (int, error) {
	n, err := r.read(p)
	if n == 0 && errors.Is(err, os.ErrDeadlineExceeded) {
		r.mu.Lock()
		yield := !r.until.IsZero()
		r.mu.Unlock()
		if yield {
			return 0, errYield
		}
		r.setBase(time.Now().Add(drainQuantum))
		n, err = r.read(p)
		if n == 0 && errors.Is(err, os.ErrDeadlineExceeded) {
			return 0, io.EOF
		}
	}
	return n, err
}

// setBase sets the deadline of every read from now on.
func (r *stdoutReader) setBase(t time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.base = t
	r.apply()
}

// turnUntil sets the end of a caller's turn to read, t; a zero t gives the
// reading back to the reader's goroutine, with the base deadline.
func (r *stdoutReader) turnUntil(t time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t.IsZero() && r.until.IsZero() {
		return
	}
	r.until = t
	r.apply()
}

// apply sets the file's read deadline to the earlier of base and until.
func (r *stdoutReader) apply() {
	d := r.base
	if !r.until.IsZero() && (d.IsZero() || r.until.Before(d)) {
		d = r.until
	}
	_ = r.f.SetReadDeadline(d)
}
