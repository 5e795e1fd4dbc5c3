//go:build unix

package cli

import "syscall"

// openFiles is how many files this process may have open (its soft
// RLIMIT_NOFILE, which Go raises to the hard limit at start), 0 if unknown.
func openFiles() int {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) != nil || l.Cur > 1<<30 {
		return 0
	}
	return int(l.Cur)
}
