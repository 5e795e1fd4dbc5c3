package codemode

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
)

// limitAddressSpace limits the process's address space to what it has
// now (VmSize) and more bytes.
func limitAddressSpace(more uint64) error {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return err
	}
	for line := range bytes.Lines(data) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmSize:")); ok {
			kb, err := strconv.ParseUint(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64)
			if err != nil {
				return err
			}
			return setrlimit(syscall.RLIMIT_AS, kb<<10+more)
		}
	}
	return errors.New("no VmSize in /proc/self/status")
}
