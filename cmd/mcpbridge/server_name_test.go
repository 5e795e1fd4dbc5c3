package main_test

import (
	"path/filepath"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testing/npmtest"
)

// A server after -- is named by what its command runs, not by the program
// that runs it (node here, npx or uvx as often), and --name overrides it.
func TestServerNamedByWhatItRuns(t *testing.T) {
	node := npmtest.Bin(t, "node")
	script, err := filepath.EvalSymlinks(npmtest.Bin(t, "mcp-server-memory"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	memory := "MEMORY_FILE_PATH=" + filepath.Join(dir, "memory.jsonl")
	expect(t, mcpbridge(t, dir, "", nil, "tools", "--", node, script), 0, "server-memory: ready")
	expect(t, mcpbridge(t, dir, "", nil, "tools", "--name", "mem", "--", node, script), 0, "mem: ready")
	expect(t, mcpbridge(t, dir, "", nil, "call", "mcp__mem__read_graph", "--name", "mem", "--env", memory, "--", node, script), 0, "entities")
	expect(t, mcpbridge(t, dir, "", nil, "tools", "--name", "mem", "--config", "x.json"), 2, "--name names a server after -- or at --url")
}
