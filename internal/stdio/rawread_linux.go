package stdio

import (
	"io"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A rawRead is a read straight from the pipe's descriptor: the
// descriptor, the function that reads, and its buffer and outcome, made
// once, so that a read costs no allocation.
type rawRead struct {
	conn syscall.RawConn
	try  func(fd uintptr) bool
	p    []byte
	n    int
	err  error
	off  bool // the descriptor blocks, or cannot be had: os.File reads
}

// init finds whether the pipe can be read past the runtime: its
// descriptor must not block.
func (r *stdoutReader) init() {
	t := &r.raw
	rc, err := r.f.SyscallConn()
	if err == nil {
		rc.Control(func(fd uintptr) {
			flags, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
			t.off = err != nil || flags&unix.O_NONBLOCK == 0
		})
	}
	if err != nil || t.off {
		t.off = true
		return
	}
	t.conn = rc
	t.try = func(fd uintptr) bool {
		for {
			n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&t.p[0])), uintptr(len(t.p)))
			switch e {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // the poller waits for data
			case 0:
				t.n, t.err = int(n), nil
			default:
				t.n, t.err = 0, e
			}
			return true
		}
	}
}

// pollable reports whether the pipe is read in non-blocking mode, its
// wait for data the poller's, which a read deadline ends without loss.
func (r *stdoutReader) pollable() bool { return !r.raw.off }

// read reads from the pipe as os.File does, but in a system call that
// does not tell the runtime (see writeFD): a read of a descriptor in
// non-blocking mode cannot block, and waiting for data is the poller's.
// Whatever goes wrong (a deadline, a closed file) is left to os.File,
// which names it.
func (r *stdoutReader) read(p []byte) (int, error) {
	t := &r.raw
	if t.off || len(p) == 0 {
		return r.f.Read(p)
	}
	t.p = p
	err := t.conn.Read(t.try)
	n, rerr := t.n, t.err
	t.p, t.n, t.err = nil, 0, nil
	switch {
	case err != nil || rerr != nil:
		return r.f.Read(p) // it says what is wrong, as os.File does
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}
