package proctest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

// DemoOnPath builds cmd/mcpbridge into a new directory, puts it first on
// PATH and makes the directory HOME, so that the demo keeps its notes
// there (a stdio server is given PATH and HOME, not the host's whole
// environment), for the tests of
// programs that start `mcpbridge serve-demo` as a reader of theirs would.
// It returns a function that removes the directory.
func DemoOnPath() (cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "mcpbridge-demo")
	if err != nil {
		return nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "github.com/mcpbridge/mcpbridge/cmd/mcpbridge")
	if out, err := build.CombinedOutput(); err != nil {
		cleanup()
		return nil, fmt.Errorf("building mcpbridge: %v\n%s", err, out)
	}
	os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	os.Setenv("HOME", dir)
	os.Unsetenv("XDG_CACHE_HOME")
	return cleanup, nil
}

// RunWithDemo runs m's tests with the demo on PATH ([DemoOnPath]), then
// checks that none left a goroutine behind, and returns the exit code: a
// TestMain's whole body is os.Exit(proctest.RunWithDemo(m)).
func RunWithDemo(m *testing.M) int {
	cleanup, err := DemoOnPath()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := m.Run()
	cleanup()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return code
}
