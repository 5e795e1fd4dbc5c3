package catalog_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/testing/oauthtest"
)

func TestAuthConfigProblems(t *testing.T) {
	dir := t.TempDir()
	loader := catalog.Loader{LookupEnv: func(name string) (string, bool) {
		return map[string]string{"SECRET": "s3cret-value"}[name], name == "SECRET"
	}}
	cfg, err := loader.Parse([]byte(fmt.Sprintf(`{"mcpServers": {
		"ok":      {"url": "https://a/mcp", "auth": {"grant": "client_credentials", "clientId": "agent", "clientSecret": "${SECRET}"}},
		"nokey":   {"url": "https://b/mcp", "auth": {"grant": "client_credentials", "clientId": "agent", "clientAuth": "private_key_jwt", "privateKeyFile": %q}},
		"bad":     {"url": "https://c/mcp", "auth": {"grant": "password", "clinetId": "x"}},
		"stdio":   {"command": "srv", "auth": {"grant": "client_credentials", "clientId": "a", "clientSecret": "b"}},
		"bearer":  {"url": "https://d/mcp", "auth": {"grant": "jwt_bearer", "clientId": "w", "clientAuth": "none"}},
		"pinned":  {"url": "https://e/mcp", "auth": {"grant": "client_credentials", "clientId": "a", "clientSecret": "b", "issuer": "https://as.example/tenant"}},
		"any":     {"url": "https://f/mcp", "auth": {"grant": "client_credentials", "clientId": "a", "clientSecret": "b", "issuer": "*"}},
		"plain":   {"url": "https://g/mcp", "auth": {"grant": "client_credentials", "clientId": "a", "clientSecret": "b", "issuer": "http://as.example"}},
		"query":   {"url": "https://h/mcp", "auth": {"grant": "client_credentials", "clientId": "a", "clientSecret": "b", "issuer": "https://as.example?x=1"}},
		"typed":   {"url": "https://i/mcp", "auth": {"grant": "client_credentials", "clientId": "a", "clientSecret": "b", "issuer": ["https://as.example"]}}
	}}`, filepath.Join(dir, "missing.pem"))))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Servers[0].Auth.ClientSecret != "s3cret-value" {
		t.Fatal("${SECRET} not expanded in auth.clientSecret")
	}
	err = cfg.Validate()
	var invalid *catalog.InvalidConfigError
	if !errors.As(err, &invalid) {
		t.Fatalf("Validate: %v", err)
	}
	text := err.Error()
	for _, want := range []string{
		`server "nokey": key "auth.privateKeyFile": cannot read the file`,
		`server "bad": key "auth.grant": "password"`,
		`server "bad": key "auth.clinetId": unknown key; did you mean "clientId"?`,
		`server "bad": key "auth.clientId": required`,
		`server "stdio": key "auth": only a server reached by url`,
		`server "bearer": key "auth.assertionFile": required`,
		`server "plain": key "auth.issuer": "http://as.example": want the authorization server's https URL`,
		`server "query": key "auth.issuer": "https://as.example?x=1": want`,
		`server "typed": key "auth.issuer": want a string`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("problems lack %q:\n%s", want, text)
		}
	}
	for _, good := range []string{"ok", "pinned", "any"} {
		if strings.Contains(text, `server "`+good+`"`) {
			t.Errorf("the good server %q has problems:\n%s", good, text)
		}
	}
	for _, printed := range []string{text, fmt.Sprint(cfg.Servers[0]), fmt.Sprintf("%#v", cfg.Servers[0])} {
		if strings.Contains(printed, "s3cret-value") {
			t.Fatalf("the client secret was printed: %s", printed)
		}
	}
}

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
	cfg, err := catalog.Load(path)
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
		cfg, err := catalog.Parse([]byte(`{"mcpServers": {"notes": {"url": "` + rs.URL + `/mcp", "required": true, "auth": {
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
	cfg, err := catalog.Parse([]byte(`{"mcpServers": {"notes": {"url": "` + srv.URL + `/mcp", "required": true, "auth": {
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
