package main

import (
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/agent"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/toolset"
)

// The chat builds its agent again only when the snapshot changes.
func TestAgentCache(t *testing.T) {
	builds := 0
	c := &agentCache{build: func(*toolset.Snapshot) (*agent.Agent, error) {
		builds++
		return agent.New(agent.Config{Model: fakeModel{}})
	}}
	first, second := &toolset.Snapshot{}, &toolset.Snapshot{}
	a1, _ := c.get(first)
	a2, _ := c.get(first)
	if builds != 1 || a1 != a2 {
		t.Fatalf("same snapshot: %d builds, same agent %v", builds, a1 == a2)
	}
	if a3, _ := c.get(second); builds != 2 || a3 == a1 {
		t.Fatalf("new snapshot: %d builds, new agent %v", builds, a3 != a1)
	}
}

type fakeModel struct{ llm.Model }

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
