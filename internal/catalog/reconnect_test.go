package catalog_test

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
)

// A stdio server that dies is started again by default, its tools listed
// again, and calls work once it is back.
func TestServerRestartedAfterDeath(t *testing.T) {
	before := proctest.Children(os.Getpid())
	ts := start(t, &config.Config{Servers: []config.Server{stdioDemo(t, "notes")}})
	if p, ok := ts.Provider("notes"); !ok || p.Name() != "notes" {
		t.Fatal("Provider(notes)")
	}
	if _, ok := ts.Provider("nope"); ok {
		t.Fatal("Provider of an unknown server")
	}
	var server int
	for _, pid := range proctest.Children(os.Getpid()) {
		if !slices.Contains(before, pid) {
			server = pid
		}
	}
	if server == 0 {
		t.Fatal("cannot find the server process")
	}
	proc, err := os.FindProcess(server)
	if err == nil {
		err = proc.Kill()
	}
	if err != nil {
		t.Fatal(err)
	}
	proctest.Eventually(t, "the server to be back after the kill", func() bool {
		if ts.Status()[0].State != mcptool.StateReady || slices.Contains(proctest.Children(os.Getpid()), server) {
			return false
		}
		_, err := ts.Snapshot(context.Background()).Call(context.Background(), "notes_list_notes", json.RawMessage(`{}`))
		return err == nil
	})
}
