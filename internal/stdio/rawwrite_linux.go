package stdio

import (
	"syscall"
	"unsafe"
)

// writeFD writes p to fd, a descriptor in non-blocking mode, in one
// system call that does not tell the runtime: one that cannot block need
// not, and telling it wakes the runtime's monitor thread whenever it
// sleeps, which between the calls of an idle client it does. That wake
// cost a client over stdio about a tenth of its CPU a call.
func writeFD(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return -1, e
	}
	return int(n), nil
}
