package main_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/testing/oauthtest"
)

// A server whose metadata names an authorization server on another origin
// does not get the config's client secret sent there: "tools" fails with
// one line naming both origins, and that server receives nothing, until
// the config pins it as the issuer.
func TestOAuthIssuer(t *testing.T) {
	const secret = "cli-s3cret-value"
	as := oauthtest.New(t, oauthtest.Config{AuthMethods: []string{"client_secret_post"}, Clients: map[string]string{"agent": secret}})
	rs := oauthtest.New(t, oauthtest.Config{MCP: demo.HTTPHandler(), Issuer: as})
	dir := t.TempDir()
	config := func(issuer string) string {
		return writeConfig(t, dir, "mcp.json", fmt.Sprintf(`{"mcpServers": {"notes": {"url": %q, "required": true,
			"auth": {"grant": "client_credentials", "clientId": "agent", "clientSecret": "${NOTES_SECRET}", "clientAuth": "post"%s}}}}`,
			rs.URL+"/mcp", issuer))
	}
	env := []string{"NOTES_SECRET=" + secret}

	r := mcpbridge(t, dir, "", env, "tools", "--config", config(""))
	expect(t, r, 3, `"notes"`, "untrusted authorization server", as.URL, "MCP server's origin "+rs.URL)
	if lines := strings.Count(strings.TrimSpace(r.err), "\n"); lines > 0 || strings.Contains(r.out+r.err, secret) {
		t.Fatalf("want one line without the secret on stderr, got:\n%s", r.err)
	}
	if n := as.Requests.Load(); n != 0 {
		t.Fatalf("the other origin's authorization server received %d requests", n)
	}

	expect(t, mcpbridge(t, dir, "", env, "tools", "--config", config(fmt.Sprintf(`, "issuer": %q`, as.URL))), 0, "notes_add_note")
	if as.Tokens.Load() != 1 {
		t.Fatalf("%d tokens issued, want 1", as.Tokens.Load())
	}
}
