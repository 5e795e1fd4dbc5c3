package proctest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
)

// WaitFile returns once another process has written the file; Eventually
// once what the process does shows.
func TestWaitForAnotherProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "done")
	cmd := exec.Command("sh", "-c", `echo done > "$0"`, path)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	proctest.WaitFile(t, path)
	pid := cmd.Process.Pid
	cmd.Wait()
	proctest.Eventually(t, "the child to be gone", func() bool { return !proctest.Alive(pid) })
	if data, _ := os.ReadFile(path); string(data) != "done\n" {
		t.Errorf("the child wrote %q", data)
	}
}
