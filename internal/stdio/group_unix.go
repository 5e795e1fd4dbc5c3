//go:build unix && !linux

package stdio

import "syscall"

// groupAlive reports whether process group pgid has any member left.
// Zombies count, which at worst makes stopGroup wait its full grace.
func groupAlive(pgid int) bool {
	return syscall.Kill(-pgid, 0) != syscall.ESRCH
}

// hasExited reports false: without waitid's WNOWAIT there is no asking
// without reaping, and the reaper's own record (ExitError) is what is known.
func hasExited(int) bool { return false }
