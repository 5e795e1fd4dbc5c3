//go:build unix

package hostile

import "syscall"

// smallReceiveBuffer gives a socket a receive buffer of a few kilobytes
// (the kernel's least), so that a peer's writes to a client that does not
// read block after that much, not after megabytes.
func smallReceiveBuffer(_, _ string, c syscall.RawConn) error {
	var err error
	if cerr := c.Control(func(fd uintptr) {
		err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
	}); cerr != nil {
		return cerr
	}
	return err
}

// smallSendBuffer gives a socket, and the sockets a listener accepts, a
// send buffer of a few kilobytes, so that writes to a peer that does not
// read block after that much, not after megabytes.
func smallSendBuffer(_, _ string, c syscall.RawConn) error {
	var err error
	if cerr := c.Control(func(fd uintptr) {
		err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDBUF, 4096)
	}); cerr != nil {
		return cerr
	}
	return err
}
