package main_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/testing/npmtest"
)

// --env goes to the server mcpbridge starts, whichever way it was named: a
// command after --, a config's one stdio server, or the one --server picks;
// --header goes to the server at a URL, --url's or a config's. Where the
// flag has no such server to go to, it is refused before anything starts,
// never dropped.
func TestEnvAndHeaderGoToTheChosenServer(t *testing.T) {
	everything := npmtest.Bin(t, "mcp-server-everything")
	dir := t.TempDir()
	one := writeConfig(t, dir, "one.json", fmt.Sprintf(`{"mcpServers": {"everything": {"command": %q, "args": ["stdio"], "env": {"KEPT": "from-config", "FOO": "config"}}}}`, everything))
	r := mcpbridge(t, dir, "", nil, "call", "get-env", "--config", one, "--server", "everything", "--env", "FOO=bar")
	expect(t, r, 0, `"FOO": "bar"`, `"KEPT": "from-config"`)
	r = mcpbridge(t, dir, "", nil, "call", "get-env", "--config", one, "--env", "FOO=bar") // the only server
	expect(t, r, 0, `"FOO": "bar"`)

	// A server that must see a header to answer.
	mcp := demo.HTTPHandler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Key") != "k1" {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		mcp.ServeHTTP(w, r)
	}))
	defer srv.Close()
	two := writeConfig(t, dir, "two.json", fmt.Sprintf(`{"mcpServers": {"everything": {"command": %q, "args": ["stdio"]}, "notes": {"url": %q}}}`, everything, srv.URL+"/mcp"))
	r = mcpbridge(t, dir, "", nil, "tools", "--config", two, "--server", "notes", "--header", "X-Key: k1")
	expect(t, r, 0, "notes_add_note")

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--config", two, "--env", "FOO=bar"}, "mcpbridge call: --env goes to one server: pick it with --server (" + two + " has everything, notes)\n"},
		{[]string{"--config", two, "--header", "X-Key: k1"}, "mcpbridge call: --header goes to one server: pick it with --server (" + two + " has everything, notes)\n"},
		{[]string{"--config", two, "--server", "notes", "--env", "FOO=bar"}, `mcpbridge call: --env sets a variable of a server mcpbridge starts; server "notes" of ` + two + " is at a URL\n"},
		{[]string{"--config", two, "--server", "everything", "--header", "X-Key: k1"}, `mcpbridge call: --header goes to a server at a URL; server "everything" of ` + two + " is a command\n"},
		{[]string{"--url", srv.URL + "/mcp", "--env", "FOO=bar"}, "mcpbridge call: --env sets a variable of a server mcpbridge starts, not of one at --url\n"},
		{[]string{"--header", "X-Key: k1", "--", everything, "stdio"}, "mcpbridge call: --header goes to a server at a URL, not to a command after --\n"},
		{[]string{"--header", "X-Key: k1"}, "mcpbridge call: --header goes to a server at a URL, not to the bundled demo server\n"},
	} {
		r := mcpbridge(t, dir, "", nil, append([]string{"call", "get-env"}, c.args...)...)
		expect(t, r, 2, c.want)
		if strings.Contains(r.err, "ready") {
			t.Errorf("%v: a server started:\n%s", c.args, r.err)
		}
	}
}

// A flag given where it cannot apply is refused with a usage error that
// says where it goes, before any server starts: a flag that silently does
// nothing lets a user believe it did.
func TestFlagsThatCannotApplyAreRefused(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"call", "note_stats", "--model", "m"}, "mcpbridge call: --model goes with --sampling: it names the model the servers may ask\n"},
		{[]string{"call", "note_stats", "--raw", "--out", dir}, "mcpbridge call: --out goes with a result mcpbridge converts: --raw prints the server's JSON and saves nothing\n"},
		{[]string{"read", "--out", dir}, "mcpbridge read: --out goes with a URI to read: without one, read lists the resources and saves nothing\n"},
		{[]string{"serve", "--allow-origin", "http://localhost:3000"}, "mcpbridge serve: --allow-origin goes with --http: over stdio there is no endpoint\n"},
		{[]string{"serve", "--allow-host", "mcp.example"}, "mcpbridge serve: --allow-host goes with --http: over stdio there is no endpoint\n"},
		{[]string{"serve", "--allow-remote"}, "mcpbridge serve: --allow-remote goes with --http: over stdio there is no endpoint\n"},
		{[]string{"serve", "--http", "127.0.0.1:0", "--allow-remote"}, "mcpbridge serve: --allow-remote lets --http bind an address that is not loopback; 127.0.0.1:0 is loopback\n"},
		{[]string{"serve", "--http", "127.0.0.1:0", "--oauth-scope", "mcp"}, "mcpbridge serve: --oauth-scope goes with OAuth: --oauth-issuer and --oauth-resource, or the config's \"oauth\"\n"},
		{[]string{"serve", "--http", "127.0.0.1:0", "--oauth-user-claim", "email"}, "mcpbridge serve: --oauth-user-claim goes with OAuth: --oauth-issuer and --oauth-resource, or the config's \"oauth\"\n"},
		{[]string{"serve", "--http", "127.0.0.1:0", "--oauth-resource", "https://mcp.example/mcp"}, "mcpbridge serve: OAuth needs both an issuer and a resource: --oauth-issuer and --oauth-resource, or the config's \"oauth\"\n"},
		{[]string{"serve", "--http", "127.0.0.1:0", "--oauth-issuer", "https://auth.example"}, "mcpbridge serve: OAuth needs both an issuer and a resource: --oauth-issuer and --oauth-resource, or the config's \"oauth\"\n"},
		{[]string{"serve-demo", "--reset", "--http", "127.0.0.1:0", "--notes", filepath.Join(dir, "notes.json")}, "mcpbridge serve-demo: --reset forgets the notes and exits, serving nothing: --http goes without it\n"},
		{[]string{"lint", "--long", "--json"}, "mcpbridge lint: give --long (every change) or --json (every problem, always), not both\n"},
	} {
		r := mcpbridge(t, dir, "", nil, c.args...)
		expect(t, r, 2, c.want)
		if strings.Contains(r.err, "ready") || strings.Contains(r.err, "forgotten") {
			t.Errorf("%v: it ran:\n%s", c.args, r.err)
		}
	}
}
