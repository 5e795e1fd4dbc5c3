package catalog_test

import (
	"fmt"
	"log"

	"github.com/mcpbridge/mcpbridge/internal/catalog"
)

// A Loader takes variables from where the host keeps them, here a map; a
// variable that is not set is a problem of the server that names it,
// reported with the others.
func ExampleLoader() {
	secrets := map[string]string{"GITHUB_TOKEN": "ghp-example"}
	loader := catalog.Loader{LookupEnv: func(name string) (string, bool) {
		v, ok := secrets[name]
		return v, ok
	}}
	config, err := loader.Parse([]byte(`{"mcpServers": {
	  "github": {"command": "github-mcp", "env": {"TOKEN": "${GITHUB_TOKEN}", "HOST": "${GITHUB_HOST:-github.com}"}},
	  "jira": {"url": "https://jira.example/mcp", "headers": {"Authorization": "Bearer ${JIRA_TOKEN}"}}
	}}`))
	if err != nil {
		log.Fatal(err)
	}
	env := config.Servers[0].Env
	fmt.Println(env["TOKEN"] == secrets["GITHUB_TOKEN"], env["HOST"])
	fmt.Println(config.Validate())
	// Output:
	// true github.com
	// toolset: server "jira": key "headers": "Authorization": variable JIRA_TOKEN is not set
}
