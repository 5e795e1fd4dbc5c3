package config_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpbridge/mcpbridge/toolset/config"
)

// A Loader takes variables from where the host keeps them, here a map; a
// variable that is not set is a problem of the server that names it,
// reported with the others.
func ExampleLoader() {
	secrets := map[string]string{"GITHUB_TOKEN": "ghp-example"}
	loader := config.Loader{LookupEnv: func(name string) (string, bool) {
		v, ok := secrets[name]
		return v, ok
	}}
	cfg, err := loader.Parse([]byte(`{"mcpServers": {
	  "github": {"command": "github-mcp", "env": {"TOKEN": "${GITHUB_TOKEN}", "HOST": "${GITHUB_HOST:-github.com}"}},
	  "jira": {"url": "https://jira.example/mcp", "headers": {"Authorization": "Bearer ${JIRA_TOKEN}"}}
	}}`))
	if err != nil {
		log.Fatal(err)
	}
	env := cfg.Servers[0].Env
	fmt.Println(env["TOKEN"] == secrets["GITHUB_TOKEN"], env["HOST"])
	fmt.Println(cfg.Validate())
	// Output:
	// true github.com
	// server "jira": key "headers": "Authorization": variable JIRA_TOKEN is not set
}

// A Claude Desktop file, parsed and checked. The token comes from the
// environment; printing the config never shows it.
func ExampleParse() {
	cfg, err := config.Parse([]byte(`{
	  "mcpServers": {
	    "github": {
	      "command": "npx",
	      "args": ["-y", "@modelcontextprotocol/server-github"],
	      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN:-none}"},
	      "disabledTools": ["delete_repository"]
	    },
	    "docs": {"url": "https://mcp.context7.com/mcp", "prefix": "docs", "timeout": "20s"}
	  }
	}`))
	if err != nil {
		log.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		log.Fatal(err)
	}
	for _, s := range cfg.Servers {
		fmt.Println(s)
	}
	// Output:
	// server "github" command "npx" args [… …] env {"GITHUB_PERSONAL_ACCESS_TOKEN": "…"} disabledTools [delete_repository]
	// server "docs" url https://mcp.context7.com/… prefix docs timeout 20s
}

// Validate reports every mistake at once, one per line, naming the server
// and the key; toolset.Start does too, before it starts anything.
func ExampleConfig_Validate() {
	cfg, err := config.Parse([]byte(`{"mcpServers": {
	  "files": {"comand": "files-server", "allowedTools": []},
	  "web": {"url": "ftp://example.com", "headers": {"Authorization": "Bearer secret"}, "timeout": -1}
	}}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(cfg.Validate())
	// Output:
	// server "files": key "comand": unknown key; did you mean "command"?
	// server "files": key "command": missing: set "command" to start the server, or "url" to reach it
	// server "files": key "allowedTools": empty: the server would offer no tool; leave the key out for all of them, or set "disabled": true
	// server "web": key "url": scheme "ftp": want http or https
	// server "web": key "timeout": negative (-1s): connecting is always bounded; leave the key out for the default
}

// A file that is not JSON fails to load, at its line and column.
func ExampleLoad() {
	dir, err := os.MkdirTemp("", "config-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "mcp.json")
	os.WriteFile(path, []byte("{\"mcpServers\": {\n  \"notes\": {\"command\": \"notes-mcp\",}\n}}\n"), 0o600)
	_, err = config.Load(path)
	fmt.Println(strings.Replace(err.Error(), dir, "DIR", 1))
	// Output:
	// DIR/mcp.json:2:36: invalid character '}' looking for beginning of object key string
}
