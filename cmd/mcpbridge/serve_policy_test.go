package main_test

import (
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
	"github.com/mcpbridge/mcpbridge/internal/testing/oauthtest"
)

// The gateway's policies follow policy's one rule: a deny matches any name
// of a tool, so --deny 'delete_*' hides and refuses delete.dir, which the
// vendor's rule offers as github_delete_dir; a client's allow matches the
// names that client is served, so ci-bot, allowed github_*, is shown and
// runs server github's tools and never server notes's tool github_push
// (notes_github_push), which its own name once let through.
func TestServePoliciesJudgeTheNamesServed(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	server := map[string]any{"command": exe, "env": map[string]string{hostile.ChildEnv: "names", "GORACE": "atexit_sleep_ms=0"}, "required": true}
	config, _ := json.Marshal(map[string]any{
		"mcpServers": map[string]any{"github": server, "notes": server},
		"gateway":    map[string]any{"clients": map[string]any{"ci-bot": map[string]any{"allow": []string{"github_*"}}}},
	})
	tokens := writeConfig(t, dir, "tokens.txt", "ci-bot tok-ci\nops tok-ops\n")
	url, _, _ := startServe(t, "--config", writeConfig(t, dir, "mcp.json", string(config)), "--token-file", tokens, "--deny", "delete_*")

	for client, want := range map[string][]string{
		"ops":    {"github_github_push", "github_push", "notes_github_push", "notes_push"},
		"ci-bot": {"github_github_push", "github_push"},
	} {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: client}, nil).Connect(t.Context(),
			&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: oauthtest.Bearer("tok-" + map[string]string{"ops": "ops", "ci-bot": "ci"}[client])}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		list, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var shown []string
		for _, tl := range list.Tools {
			shown = append(shown, tl.Name)
		}
		slices.Sort(shown)
		if !slices.Equal(shown, want) {
			t.Errorf("%s is shown %v, want %v", client, shown, want)
		}
		for name, allowed := range map[string]bool{
			"github_delete_dir": false,
			"github_push":       true,
			"notes_github_push": client == "ops",
		} {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"text": "ran"}})
			ran := err == nil && !res.IsError
			if ran != allowed {
				t.Errorf("%s calls %s: ran %v, want %v (%v)", client, name, ran, allowed, err)
			}
		}
	}
}
