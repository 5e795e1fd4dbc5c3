// Package proctest tells tests what Linux's /proc says of processes: the
// children of a process, and whether one has exited. A test that starts a
// server as a subprocess uses it to find that process and to check that
// nothing it started outlives it, and a [Buffer] to catch what the
// process writes to its stderr meanwhile.
package proctest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// fields returns the fields of a /proc/<pid>/stat file that follow the
// command name (state, ppid, ...), or nil when the file cannot be read. The
// name is in parentheses and may hold anything, so the fields start after
// its last ')'.
func fields(path string) []string {
	data, err := os.ReadFile(path)
	i := bytes.LastIndexByte(data, ')')
	if err != nil || i < 0 {
		return nil
	}
	return strings.Fields(string(data[i+1:]))
}

// Children returns the pids of pid's child processes, leaving out zombies
// (children that exited and are not yet reaped).
func Children(pid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	parent := strconv.Itoa(pid)
	var out []int
	for _, f := range stats {
		if fs := fields(f); len(fs) > 1 && fs[0] != "Z" && fs[1] == parent {
			c, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
			out = append(out, c)
		}
	}
	return out
}

// Alive reports whether process pid has not exited. A zombie has: it will
// never run again, and an orphan may stay one for as long as PID 1 does not
// reap it.
func Alive(pid int) bool {
	fs := fields("/proc/" + strconv.Itoa(pid) + "/stat")
	return len(fs) > 0 && fs[0] != "Z" && fs[0] != "X"
}
