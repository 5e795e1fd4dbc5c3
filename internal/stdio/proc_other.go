//go:build !unix

package stdio

import (
	"os/exec"
	"time"
)

// setProcessGroup does nothing: there are no POSIX process groups here.
// Stopping a server's children would need a Windows job object.
func setProcessGroup(*exec.Cmd) {}

// terminate kills the server: there is no SIGTERM to ask politely with.
func (c *Conn) terminate() { _ = c.cmd.Process.Kill() }

// kill kills the server.
func (c *Conn) kill() { _ = c.cmd.Process.Kill() }

// stopGroup does nothing without process groups.
func stopGroup(int, time.Duration) {}

// hasExited reports false: the reaper's own record (ExitError) is what is
// known here.
func hasExited(int) bool { return false }
