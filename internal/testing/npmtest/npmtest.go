// Package npmtest finds the npm-installed MCP servers that tests run
// against. `make test` (and so CI) installs them into .cache/npm at the
// repository's root and names that directory in MCPBRIDGE_NPM_DIR.
package npmtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Bin returns the path of the npm package binary bin. It looks in
// MCPBRIDGE_NPM_DIR when that is set, and fails the test if bin is not
// there; otherwise in the repository's .cache/npm, where an earlier `make
// test` left it. Only a plain `go test` on a machine where `make test` never
// ran skips, saying how to run the test.
func Bin(t testing.TB, bin string) string {
	t.Helper()
	dir, set := os.LookupEnv("MCPBRIDGE_NPM_DIR")
	if !set {
		dir = repoCache()
	}
	path := filepath.Join(dir, "node_modules", ".bin", bin)
	if _, err := os.Stat(path); err != nil {
		if !set {
			t.Skipf("needs %s from npm: run `make test`, which installs it", bin)
		}
		t.Fatalf("MCPBRIDGE_NPM_DIR is set but %s is not installed: %v", bin, err)
	}
	return path
}

// repoCache returns .cache/npm in the first directory up from the working
// directory (a test's package directory) that holds go.mod.
func repoCache() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, ".cache", "npm")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
