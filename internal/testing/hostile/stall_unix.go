//go:build unix

package hostile

import "syscall"

// smallReceiveBuffer gives a socket a receive buffer of a few kilobytes
// (the kernel's least), so that a peer's writes to a client that does not
// read block after that much, not after megabytes; smallSendBuffer gives a
// socket, and the sockets a listener accepts, such a send buffer, so that
// its writes to a peer that does not read do.
var smallReceiveBuffer, smallSendBuffer = smallBuffer(syscall.SO_RCVBUF), smallBuffer(syscall.SO_SNDBUF)

// smallBuffer sets the socket option opt, a buffer's size, to its least.
func smallBuffer(opt int) func(string, string, syscall.RawConn) error {
	return func(_, _ string, c syscall.RawConn) error {
		var err error
		if cerr := c.Control(func(fd uintptr) {
			err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, opt, 4096)
		}); cerr != nil {
			return cerr
		}
		return err
	}
}
