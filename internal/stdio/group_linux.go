package stdio

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// hasExited reports whether pid, a child of ours, has exited, reaped or
// not; it reaps nothing (WNOWAIT), so the reaper's Wait still does.
func hasExited(pid int) bool {
	var info unix.Siginfo // zeroed: Linux leaves it so for a running child
	err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	if errors.Is(err, unix.ECHILD) {
		return true // reaped already
	}
	return err == nil && info.Signo != 0
}

// groupAlive reports whether process group pgid has a member that has not
// exited. kill(-pgid, 0) alone is not enough: a member killed after its
// parent exited is reparented to PID 1, and where PID 1 does not reap (a Go
// program or a bare sandbox as PID 1 in a container) it stays a zombie,
// still in the group, forever. /proc tells zombies apart.
func groupAlive(pgid int) bool {
	if syscall.Kill(-pgid, 0) == syscall.ESRCH {
		return false
	}
	d, err := os.Open("/proc")
	if err != nil {
		return true
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return true
	}
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		data, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue // exited meanwhile
		}
		// "pid (comm) state ppid pgrp ...": comm may hold spaces and
		// parentheses, so fields are counted from the last ')'.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(data[i+1:])
		if len(f) < 3 {
			continue
		}
		if pg, err := strconv.Atoi(string(f[2])); err != nil || pg != pgid {
			continue
		}
		if state := f[0][0]; state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}
