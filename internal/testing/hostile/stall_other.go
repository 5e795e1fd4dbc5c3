//go:build !unix

package hostile

import "syscall"

// smallReceiveBuffer leaves the buffer as it is: a peer's writes block
// only once the system's default buffers are full.
func smallReceiveBuffer(string, string, syscall.RawConn) error { return nil }

// smallSendBuffer leaves the buffer as it is.
func smallSendBuffer(string, string, syscall.RawConn) error { return nil }
