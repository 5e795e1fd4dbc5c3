package toolset_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/oauthtest"
	"github.com/mcpbridge/mcpbridge/toolset"
)

func TestAuthConfigProblems(t *testing.T) {
	dir := t.TempDir()
	loader := toolset.Loader{LookupEnv: func(name string) (string, bool) {
		return map[string]string{"SECRET": "s3cret-value"}[name], name == "SECRET"
	}}
	cfg, err := loader.Parse([]byte(fmt.Sprintf(`{"mcpServers": {
		"ok":      {"url": "https://a/mcp", "auth": {"grant": "client_credentials", "clientId": "agent", "clientSecret": "${SECRET}"}},
		"nokey":   {"url": "https://b/mcp", "auth": {"grant": "client_credentials", "clientId": "agent", "clientAuth": "private_key_jwt", "privateKeyFile": %q}},
		"bad":     {"url": "https://c/mcp", "auth": {"grant": "password", "clinetId": "x"}},
		"stdio":   {"command": "srv", "auth": {"grant": "client_credentials", "clientId": "a", "clientSecret": "b"}},
		"bearer":  {"url": "https://d/mcp", "auth": {"grant": "jwt_bearer", "clientId": "w", "clientAuth": "none"}}
	}}`, filepath.Join(dir, "missing.pem"))))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Servers[0].Auth.ClientSecret != "s3cret-value" {
		t.Fatal("${SECRET} not expanded in auth.clientSecret")
	}
	err = cfg.Validate()
	var invalid *toolset.ValidationError
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
	} {
		if !strings.Contains(text, want) {
			t.Errorf("problems lack %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, `server "ok"`) {
		t.Errorf("the good server has problems:\n%s", text)
	}
	for _, printed := range []string{text, fmt.Sprint(cfg.Servers[0]), fmt.Sprintf("%#v", cfg.Servers[0])} {
		if strings.Contains(printed, "s3cret-value") {
			t.Fatalf("the client secret was printed: %s", printed)
		}
	}
}

// A config's client-credentials entry opens a server behind OAuth.
func TestAuthConfigClientCredentials(t *testing.T) {
	srv := oauthtest.New(t, demo.HTTPHandler(), []string{"client_secret_post"}, func(r *http.Request) bool {
		return r.FormValue("client_id") == "agent" && r.FormValue("client_secret") == "from-env" && r.FormValue("scope") == "notes"
	})
	t.Setenv("NOTES_SECRET", "from-env")
	path := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(path, []byte(`{"mcpServers": {"notes": {"url": "`+srv.URL+`/mcp", "auth": {
		"grant": "client_credentials", "clientId": "agent", "clientSecret": "${NOTES_SECRET}", "clientAuth": "post", "scopes": ["notes"]}}}}`), 0o600)
	cfg, err := toolset.Load(path)
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
