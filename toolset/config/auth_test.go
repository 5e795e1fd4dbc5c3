package config_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/toolset/config"
)

func TestAuthConfigProblems(t *testing.T) {
	dir := t.TempDir()
	loader := config.Loader{LookupEnv: func(name string) (string, bool) {
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
	var invalid *config.InvalidError
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
