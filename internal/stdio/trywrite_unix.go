//go:build unix

package stdio

import (
	"errors"
	"syscall"
)

// tryWrite writes what of line the pipe takes at once, without waiting
// for room and without a deadline. Setting and clearing the deadline of
// a write that needs none costs two timer changes, each of which may wake
// the poller: more than the write of a small call.
func (c *Conn) tryWrite(line []byte) (int, error) {
	rc, err := c.stdin.SyscallConn()
	if err != nil {
		return 0, nil // the blocking write will say what is wrong
	}
	var n int
	var werr error
	err = rc.Write(func(fd uintptr) bool {
		for {
			n, werr = syscall.Write(int(fd), line)
			if werr != syscall.EINTR {
				return true
			}
		}
	})
	if n < 0 {
		n = 0
	}
	if err != nil || errors.Is(werr, syscall.EAGAIN) {
		return n, nil // the blocking write takes over, and names a failure
	}
	return n, werr
}
