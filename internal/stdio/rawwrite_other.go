//go:build unix && !linux

package stdio

import "syscall"

// writeFD writes p to fd, a descriptor in non-blocking mode.
func writeFD(fd int, p []byte) (int, error) { return syscall.Write(fd, p) }
