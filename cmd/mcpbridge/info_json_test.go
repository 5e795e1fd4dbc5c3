package main_test

import (
	"fmt"
	"path/filepath"
	"testing"
)

// info --json is an array with an object per server, in the shape info's
// help documents; a server that did not start has its error and nothing
// else, and the status is still 3.
func TestInfoJSON(t *testing.T) {
	type server struct {
		Name   string
		Error  string
		Server *struct {
			Name, Version, Title string
		}
		ProtocolVersion string
		Capabilities    map[string]any
		Extensions      []string
		Tools           int
		Skills          []struct{ Name, Description string }
		SkillsError     string
		Instructions    string
	}
	dir := t.TempDir()
	var infos []server
	r := mcpbridge(t, dir, "", nil, "info", "--json")
	expect(t, r, 0)
	decode(t, r.out, &infos)
	if len(infos) != 1 {
		t.Fatalf("%d servers", len(infos))
	}
	demo := infos[0]
	if demo.Name != "demo" || demo.Server == nil || demo.Server.Name != "mcpbridge-demo" || demo.ProtocolVersion != "2026-07-28" ||
		demo.Capabilities["tools"] == nil || demo.Tools != 11 || len(demo.Extensions) != 2 || demo.Instructions == "" ||
		len(demo.Skills) != 1 || demo.Skills[0].Name != "weekly-review" || demo.Error != "" {
		t.Errorf("demo: %+v", demo)
	}

	cfg := writeConfig(t, dir, "servers.json", fmt.Sprintf(`{"mcpServers": {
		"home": {"command": %q, "args": ["serve-demo"]},
		"broken": {"command": %q}
	}}`, bin, filepath.Join(dir, "missing")))
	r = mcpbridge(t, dir, "", nil, "info", "--json", "--config", cfg)
	expect(t, r, 3, `server "broken" did not start`)
	infos = nil
	decode(t, r.out, &infos)
	if len(infos) != 2 || infos[0].Name != "broken" && infos[1].Name != "broken" {
		t.Fatalf("servers: %+v", infos)
	}
	for _, info := range infos {
		if started := info.Server != nil; started == (info.Error != "") || (info.Name == "broken") == started {
			t.Errorf("%s: %+v", info.Name, info)
		}
	}
}
