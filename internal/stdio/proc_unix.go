//go:build unix

package stdio

import (
	"os/exec"
	"syscall"
	"time"
)

// setProcessGroup makes the server the leader of a new process group, so
// that it and everything it starts (npx's node, a wrapper's real server)
// can be signalled as one, and a Ctrl-C meant for us is not delivered to it
// by the terminal behind our back.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// terminate sends SIGTERM to the server's group. Once the server itself
// has exited the reaper owns the group, and its pid may not be ours to
// signal for much longer.
func (c *Conn) terminate() { c.signalGroup(syscall.SIGTERM) }

// kill sends SIGKILL to the server's group; see terminate.
func (c *Conn) kill() { c.signalGroup(syscall.SIGKILL) }

func (c *Conn) signalGroup(sig syscall.Signal) {
	select {
	case <-c.exited:
	default:
		_ = syscall.Kill(-c.pid, sig)
	}
}

// stopGroup makes sure no member of process group pgid survives its
// leader: SIGTERM, a wait of up to grace for the group to empty, SIGKILL,
// and as SIGKILL takes effect asynchronously, another such wait, so that
// when it returns the group is gone unless a member is stuck in the kernel.
func stopGroup(pgid int, grace time.Duration) {
	if syscall.Kill(-pgid, syscall.SIGTERM) != nil {
		return // ESRCH: nobody left
	}
	if waitGroupGone(pgid, grace) {
		return
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	waitGroupGone(pgid, grace)
}

// waitGroupGone polls, with growing pauses, whether group pgid has emptied;
// there is no way to wait for processes that are not our children.
func waitGroupGone(pgid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		if !groupAlive(pgid) {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		time.Sleep(min(pause, left))
	}
}
