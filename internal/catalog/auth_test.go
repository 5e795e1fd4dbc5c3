package catalog_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/testing/oauthtest"
	"github.com/mcpbridge/mcpbridge/toolset/config"
)

// A config's client-credentials entry opens a server behind OAuth.
func TestAuthConfigClientCredentials(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Config{MCP: demo.HTTPHandler(), AuthMethods: []string{"client_secret_post"}, Clients: map[string]string{"agent": "from-env"},
		Check: func(r *http.Request, f url.Values) *oauthtest.Refusal {
			if f.Get("scope") != "notes" {
				return &oauthtest.Refusal{Status: http.StatusBadRequest, Code: "invalid_scope"}
			}
			return nil
		}})
	t.Setenv("NOTES_SECRET", "from-env")
	path := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(path, []byte(`{"mcpServers": {"notes": {"url": "`+srv.URL+`/mcp", "auth": {
		"grant": "client_credentials", "clientId": "agent", "clientSecret": "${NOTES_SECRET}", "clientAuth": "post", "scopes": ["notes"]}}}}`), 0o600)
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	ts := start(t, cfg)
	res, err := ts.Snapshot(context.Background()).Call(context.Background(), "notes_add_note", json.RawMessage(`{"title":"t","body":"b"}`))
	if err != nil || !strings.Contains(res.Text(), "added note #1") {
		t.Fatalf("call: %q, %v", res.Text(), err)
	}
	if srv.Tokens.Load() != 1 {
		t.Fatalf("%d token requests", srv.Tokens.Load())
	}
}

// A config's credentials go only to the authorization server its "issuer"
// pins, or without one to a server on the MCP server's origin: the
// metadata of a server behind another origin's authorization server is
// refused unless that server is pinned.
func TestAuthConfigIssuer(t *testing.T) {
	as := oauthtest.New(t, oauthtest.Config{AuthMethods: []string{"client_secret_post"}, Clients: map[string]string{"agent": "s3cret-value"}})
	rs := oauthtest.New(t, oauthtest.Config{MCP: demo.HTTPHandler(), Issuer: as})
	for _, tc := range []struct{ issuer, refusal string }{
		{"", "which is not on the MCP server's origin " + rs.URL},
		{`, "issuer": "https://as.example"`, "not the pinned issuer https://as.example"},
		{`, "issuer": "` + as.URL + `"`, ""},
		{`, "issuer": "*"`, ""},
	} {
		cfg, err := config.Parse([]byte(`{"mcpServers": {"notes": {"url": "` + rs.URL + `/mcp", "required": true, "auth": {
			"grant": "client_credentials", "clientId": "agent", "clientSecret": "s3cret-value", "clientAuth": "post"` + tc.issuer + `}}}}`))
		if err != nil {
			t.Fatal(err)
		}
		before := as.Requests.Load()
		ts, err := catalog.Start(context.Background(), cfg)
		if tc.refusal == "" {
			if err != nil {
				t.Fatalf("issuer %s: %v", tc.issuer, err)
			}
			if err := ts.Close(); err != nil {
				t.Error(err)
			}
			continue
		}
		if err == nil {
			ts.Close()
			t.Fatalf("issuer %s: Start succeeded", tc.issuer)
		}
		if !strings.Contains(err.Error(), tc.refusal) || !strings.Contains(err.Error(), as.URL) || strings.Contains(err.Error(), "s3cret-value") {
			t.Errorf("issuer %s: error %q, want one naming %s and %q, without the secret", tc.issuer, err, as.URL, tc.refusal)
		}
		if n := as.Requests.Load() - before; n != 0 {
			t.Errorf("issuer %s: the other origin's authorization server received %d requests", tc.issuer, n)
		}
	}
	if as.Tokens.Load() != 2 {
		t.Errorf("%d tokens issued, want 2", as.Tokens.Load())
	}
}

// "dpop": true binds the tokens to a key made at start: the token requests
// and the MCP requests carry its proofs, which a server that binds tokens
// (and asks for nonces) requires.
func TestAuthConfigDPoP(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Config{MCP: demo.HTTPHandler(), DPoP: true, DPoPNonce: true, Clients: map[string]string{"agent": "s3cret-value"}})
	cfg, err := config.Parse([]byte(`{"mcpServers": {"notes": {"url": "` + srv.URL + `/mcp", "required": true, "auth": {
		"grant": "client_credentials", "clientId": "agent", "clientSecret": "s3cret-value", "dpop": true}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	ts := start(t, cfg)
	res, err := ts.Snapshot(context.Background()).Call(context.Background(), "notes_add_note", json.RawMessage(`{"title":"t","body":"b"}`))
	if err != nil || !strings.Contains(res.Text(), "added note #1") {
		t.Fatalf("call: %q, %v", res.Text(), err)
	}
	if as, rs := srv.NonceChallenges("/token"), srv.NonceChallenges("/mcp"); as != 1 || rs != 1 {
		t.Errorf("nonce challenges: token endpoint %d, MCP server %d; want 1 each", as, rs)
	}
}
