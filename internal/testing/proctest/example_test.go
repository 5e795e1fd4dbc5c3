package proctest_test

import (
	"fmt"
	"os"
	"os/exec"
	"slices"

	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
)

// A test finds the process it started among its children, and sees it gone
// once it has been killed.
func Example() {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		fmt.Println(err)
		return
	}
	pid := cmd.Process.Pid
	fmt.Println(slices.Contains(proctest.Children(os.Getpid()), pid), proctest.Alive(pid))
	cmd.Process.Kill()
	cmd.Wait()
	fmt.Println(slices.Contains(proctest.Children(os.Getpid()), pid), proctest.Alive(pid))
	// Output:
	// true true
	// false false
}
