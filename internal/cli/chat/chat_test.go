package chat

import (
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/toolset"
)

func TestServerLabels(t *testing.T) {
	cfg := &toolset.Config{Servers: []toolset.ServerConfig{{Name: "my notes"}, {Name: "files"}}}
	labels, err := serverLabels(cfg)
	if err != nil || labels["my notes"] != "my_notes" || labels["files"] != "files" {
		t.Fatalf("labels %v, %v", labels, err)
	}
	cfg.Servers = append(cfg.Servers, toolset.ServerConfig{Name: "my/notes"})
	if _, err := serverLabels(cfg); err == nil || !strings.Contains(err.Error(), `"my notes" and "my/notes"`) {
		t.Fatalf("colliding labels: %v", err)
	}
}
