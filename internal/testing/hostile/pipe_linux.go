package hostile

import (
	"io"
	"os"
	"syscall"
	"unsafe"
)

// pipeFull reports whether r is a pipe so full that a write of more than
// PIPE_BUF bytes to it blocks.
func pipeFull(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	conn, err := f.SyscallConn()
	if err != nil {
		return false
	}
	var unread, size int32
	var ioctlErr syscall.Errno
	conn.Control(func(fd uintptr) {
		_, _, ioctlErr = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&unread)))
		s, _, err := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETPIPE_SZ, 0)
		if err != 0 {
			ioctlErr = err
		}
		size = int32(s)
	})
	const pipeBuf = 4096
	return ioctlErr == 0 && size > 0 && unread > size-pipeBuf
}
