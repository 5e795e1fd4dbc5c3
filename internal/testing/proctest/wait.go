package proctest

import (
	"os"
	"testing"
	"time"
)

// Bound is how long [Eventually] waits: far beyond what another process
// takes on a loaded machine, so that reaching it means the code under test
// hung, not that the machine was slow.
const Bound = 30 * time.Second

// Eventually polls cond until it holds, and fails t, naming what it waited
// for, once [Bound] passes without it. It is for what another process does
// (a server writing a file, exiting, starting again), which cannot signal
// the test; within one process a test waits on a channel or in a
// testing/synctest bubble instead.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(Bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", Bound, what)
		}
		time.Sleep(5 * time.Millisecond) // another process: nothing to wait on
	}
}

// WaitFile waits, as [Eventually] does, for another process to create path.
func WaitFile(t testing.TB, path string) {
	t.Helper()
	Eventually(t, path+" to appear", func() bool {
		_, err := os.Stat(path)
		return err == nil
	})
}
