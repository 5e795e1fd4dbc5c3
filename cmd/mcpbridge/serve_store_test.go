//go:build unix

package main_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testing/redistest"
)

// serve's store and audit log are named by flags, the environment or the
// config's "gateway": a password on the command line is refused, never
// echoed; the audit log is not written to stdout over stdio, where the
// client is; arguments are recorded only in an audit log; a replica that
// cannot read the task key from the store does not start, saying how to.
func TestServeStoreAndAuditUsage(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--http", "127.0.0.1:0", "--store", "redis://:hunter2-secret@127.0.0.1:1/0"}, "--store redis://…@127.0.0.1:1/…: a password on the command line"},
		{[]string{"--audit", "-"}, "--audit -: over stdio, stdout is the client's"},
		{[]string{"--http", "127.0.0.1:0", "--audit-arguments"}, "--audit-arguments records arguments in the audit log: give --audit FILE"},
		{[]string{"--http", "127.0.0.1:0", "--store-timeout", "-1s"}, "Limits.StoreTimeout -1s: negative"},
	} {
		r := mcpbridge(t, dir, "", nil, append([]string{"serve"}, c.args...)...)
		if r.code == 0 || !strings.Contains(r.out+r.err, c.want) || strings.Contains(r.out+r.err, "hunter2") {
			t.Errorf("serve %v: exit %d, %s%s; want a refusal saying %q", c.args, r.code, r.out, r.err, c.want)
		}
	}
	gone := filepath.Join(dir, "gone.json")
	os.WriteFile(gone, []byte(`{"mcpServers": {}, "gateway": {"store": "redis://127.0.0.1:1/0"}}`), 0o600)
	r := mcpbridge(t, dir, "", nil, "serve", "--config", gone, "--http", "127.0.0.1:0")
	expect(t, r, 1, "reading the replicas' task key", "--task-key-file")
	r = mcpbridge(t, dir, "", nil, "serve", "--help")
	for _, want := range []string{"  --store URL\n", "  --store-timeout DURATION\n", "  --audit FILE\n", "  --audit-arguments\n", "deploy/haproxy.cfg"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("serve's help lacks %q", want)
		}
	}
}

// With the store and the audit log from the config's "gateway" (the store
// from $MCPBRIDGE_STORE too), serve counts a client's rate limit in the
// store, says the store is up in /readyz, and writes a record of each
// request to the file, relative to the config.
func TestServeStoreAndAuditFromTheConfig(t *testing.T) {
	redis := redistest.Start(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "mcp.json")
	os.WriteFile(config, []byte(`{"mcpServers": {}, "gateway": {"store": "`+redis.URL+`", "audit": {"file": "audit.jsonl"},
		"rateLimit": {"rate": 0.001, "burst": 2}}}`), 0o600)
	url, _, _ := startServe(t, "--config", config)
	cs, _ := connectServe(t, url, "2026-07-28")
	for range 3 {
		cs.ListTools(t.Context(), nil) // the third past the burst of 2 (the handshake is not counted)
	}
	rc := redis.Client()
	defer rc.Close()
	if n, err := rc.Exists(t.Context(), "mcpbridge:rate:").Result(); err != nil || n != 1 {
		t.Errorf("the bucket of the requests without a token is not in the store: %d, %v", n, err)
	}
	resp, err := http.Get(strings.TrimSuffix(url, "/mcp") + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	var body struct{ Status, Store string }
	json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if body.Status != "ready" || body.Store != "up" {
		t.Errorf("/readyz: %+v", body)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "audit.jsonl"))
	if !strings.Contains(string(data), `"method":"tools/list"`) || !strings.Contains(string(data), `"outcome":"refused","bound":"RateLimit"`) {
		t.Errorf("the audit log:\n%s", data)
	}
}
