//go:build unix && !linux

package stdio

import "syscall"

// groupAlive reports whether process group pgid has any member left.
// Zombies count, which at worst makes stopGroup wait its full grace.
func groupAlive(pgid int) bool {
	return syscall.Kill(-pgid, 0) != syscall.ESRCH
}
