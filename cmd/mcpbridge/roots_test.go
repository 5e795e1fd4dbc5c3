package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/testing/npmtest"
)

// Proves that declaring roots never widens what a server was given: the
// reference filesystem server replaces the directories on its command line
// with the client's roots, so a command run in a directory above its
// sandbox, which once declared the working directory, let it read the
// whole directory (cd / read /etc/hostname). Now no root is declared
// unless the user names one (--root, or a server's "roots" in the config,
// which --no-roots drops).
func TestRootsNeverWidenASandbox(t *testing.T) {
	fs := npmtest.Bin(t, "mcp-server-filesystem")
	dir := t.TempDir()
	site, other := filepath.Join(dir, "site"), filepath.Join(dir, "other")
	for _, d := range []string{site, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret := writeConfig(t, dir, "secret.txt", "the secret beside the sandbox")
	read := `{"path":"` + secret + `"}`

	// In the directory that holds the sandbox and the secret, as cd / was.
	r := mcpbridge(t, dir, "", nil, "call", "read_text_file", read, "--", fs, site)
	expect(t, r, 1, "read_text_file")
	if strings.Contains(r.out+r.err, "the secret") {
		t.Fatalf("the server read outside its sandbox:\n%s%s", r.out, r.err)
	}
	allowed := func(args ...string) string {
		t.Helper()
		r := mcpbridge(t, dir, "", nil, append([]string{"call", "list_allowed_directories", "{}"}, args...)...)
		expect(t, r, 0)
		return r.out
	}
	if out := allowed("--", fs, site); !strings.Contains(out, site) || strings.Contains(out, dir+"\n") {
		t.Errorf("with no root named, the server may work in:\n%s", out)
	}
	// A config's "roots" are declared as named (which this server would
	// then take in place of site, once it has asked for them: TestRoots
	// shows what is declared), and --no-roots drops them.
	config, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"files": map[string]any{"command": fs, "args": []string{site}, "roots": []string{other}},
	}})
	cfg := writeConfig(t, dir, "roots.json", string(config))
	if out := allowed("--config", cfg, "--no-roots"); !strings.Contains(out, site) || strings.Contains(out, other) {
		t.Errorf(`with "roots" and --no-roots, the server may work in:\n%s`, out)
	}
}

// Proves that the gateway declares no roots unless configured: it once
// declared its working directory to every server, for every client, so a
// client read what lay beside the filesystem server's sandbox.
func TestServeDeclaresNoRoots(t *testing.T) {
	fs := npmtest.Bin(t, "mcp-server-filesystem")
	dir := t.TempDir()
	config, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"files": map[string]any{"command": fs, "args": []string{dir}, "required": true},
	}})
	// The gateway runs in this package's directory, where this file is.
	beside, err := filepath.Abs("roots_test.go")
	if err != nil {
		t.Fatal(err)
	}
	url, _, _ := startServe(t, "--config", writeConfig(t, dir, "mcp.json", string(config)))
	cs, _ := connectServe(t, url, "")
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "files_read_text_file", Arguments: map[string]any{"path": beside}})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(res)
	if !res.IsError || strings.Contains(string(data), "package main_test") {
		t.Fatalf("a client read beside the server's sandbox: %.200s", data)
	}
}
