//go:build unix

package stdio

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// tryWrite writes what of line the pipe takes at once, without waiting
// for room and without a deadline. Setting and clearing the deadline of
// a write that needs none costs two timer changes, each of which may wake
// the poller: more than the write of a small call. Called under the
// write lock, it uses the Conn's one raw write, made with the Conn, so
// that a write costs no allocation.
func (c *Conn) tryWrite(line []byte) (int, error) {
	t := &c.try
	if t.conn == nil && t.write == nil {
		rc, err := c.stdin.SyscallConn()
		if err != nil {
			return 0, nil // the blocking write will say what is wrong
		}
		t.conn = rc
		nonblocking := false
		rc.Control(func(fd uintptr) {
			flags, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
			nonblocking = err == nil && flags&unix.O_NONBLOCK != 0
		})
		if !nonblocking {
			// A write that would wait is not tried: it is the blocking
			// write's, which can be abandoned.
			t.write = func(uintptr) bool { t.n, t.err = 0, syscall.EAGAIN; return true }
		}
	}
	if t.write == nil {
		t.write = func(fd uintptr) bool {
			for {
				t.n, t.err = writeFD(int(fd), t.line)
				if t.err != syscall.EINTR {
					return true
				}
			}
		}
	}
	t.line = line
	err := t.conn.Write(t.write)
	n, werr := max(t.n, 0), t.err
	*t = rawWrite{conn: t.conn, write: t.write}
	if err != nil || errors.Is(werr, syscall.EAGAIN) {
		return n, nil // the blocking write takes over, and names a failure
	}
	return n, werr
}
