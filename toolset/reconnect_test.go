package toolset_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/toolset"
)

// children returns the pids of this process's child processes.
func children(t *testing.T) []int {
	t.Helper()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var pids []int
	for _, f := range stats {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// The fields after the command name: state, ppid, ...
		rest := string(data[strings.LastIndexByte(string(data), ')')+2:])
		fields := strings.Fields(rest)
		if len(fields) > 1 && fields[0] != "Z" && fields[1] == strconv.Itoa(os.Getpid()) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
			pids = append(pids, pid)
		}
	}
	return pids
}

// A stdio server that dies is started again by default, its tools listed
// again, and calls work once it is back.
func TestServerRestartedAfterDeath(t *testing.T) {
	before := children(t)
	ts := start(t, &toolset.Config{Servers: []toolset.ServerConfig{stdioDemo(t, "notes")}})
	if p, ok := ts.Provider("notes"); !ok || p.Name() != "notes" {
		t.Fatal("Provider(notes)")
	}
	if _, ok := ts.Provider("nope"); ok {
		t.Fatal("Provider of an unknown server")
	}
	var server int
	for _, pid := range children(t) {
		if !containsInt(before, pid) {
			server = pid
		}
	}
	if server == 0 {
		t.Fatal("cannot find the server process")
	}
	if err := syscall.Kill(server, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		st := ts.Status()[0]
		if st.State == mcptool.StateReady && !containsInt(children(t), server) {
			if _, err := ts.Snapshot(context.Background()).Call(context.Background(), "notes_list_notes", json.RawMessage(`{}`)); err == nil {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("not back after the kill: %+v", st)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func containsInt(list []int, x int) bool {
	for _, v := range list {
		if v == x {
			return true
		}
	}
	return false
}
