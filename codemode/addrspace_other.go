//go:build unix && !linux

package codemode

// limitAddressSpace does nothing here: the size of the process's address
// space is not known to it, and macOS does not enforce the limit anyway.
func limitAddressSpace(uint64) error { return nil }
