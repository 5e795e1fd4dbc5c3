package gateway

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/gate"
	"github.com/mcpbridge/mcpbridge/tool"
	"github.com/mcpbridge/mcpbridge/toolset"
)

// served is what the gateway's servers serve now, each item by the hash of
// what a client reads of it, so that a re-listing that changes nothing
// notifies no one.
type served struct {
	snap      *toolset.Snapshot
	defs      []tool.Definition     // the catalog as listed, policy applied
	policy    *gate.Policy          // the policy, knowing the catalog's names
	tools     map[string][32]byte   // name → hash
	resources map[string]servedItem // URI → server
	templates map[string]servedItem // URI template → server
	prompts   map[string]servedItem // final name → server
	level     mcp.LoggingLevel      // the servers' log level, "" for none asked

	// clients maps a client's name to its own policy, knowing the
	// catalog's names (clients.go).
	clients map[string]*gate.Policy
}

// A servedItem is a resource, resource template or prompt the gateway
// serves: the server it is of, its name there, and the hash of what a
// client reads of it.
type servedItem struct {
	server, name string
	hash         [32]byte
}

func hash(v any) [32]byte {
	data, _ := json.Marshal(v)
	return sha256.Sum256(data)
}

// syncTools takes the toolset's current catalog and serves it: the tools the
// policy allows, each added anew only if it changed, so that go-sdk tells
// the connected clients (notifications/tools/list_changed) only of a real
// change.
func (g *Gateway) syncTools() {
	snap := g.ts.Snapshot(g.ctx)
	defs := snap.Definitions()
	var pol *gate.Policy
	if g.o.policy != nil {
		pol = (*gate.Policy)(g.o.policy).For(defs)
		defs = slices.DeleteFunc(defs, func(d tool.Definition) bool { return !pol.Allowed(d.Name) })
	}
	clients := g.clientPolicies(defs)
	g.mu.Lock()
	defer g.mu.Unlock()
	old := g.served.tools
	now := make(map[string][32]byte, len(defs))
	var gone []string
	for _, d := range defs {
		t, err := mcpTool(d)
		if err != nil {
			g.log.Warn("gateway: tool left out", "server", d.Origin.Server, "tool", d.Name, "err", err)
			continue
		}
		h := hash(t)
		if old[d.Name] != h {
			added := false
			g.guard(d.Origin.Server, "tool "+d.Name, func() { g.full.AddTool(t, g.callTool); added = true })
			if !added {
				continue
			}
		}
		now[d.Name] = h
	}
	for name := range old {
		if _, ok := now[name]; !ok {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		g.full.RemoveTools(gone...)
	}
	g.served.snap, g.served.defs, g.served.policy, g.served.tools, g.served.clients = snap, defs, pol, now, clients
}

// mcpTool is d as an MCP client reads it. go-sdk's AddTool panics on an
// input schema whose type is not "object", which a server may send; such a
// tool is refused here instead.
func mcpTool(d tool.Definition) (*mcp.Tool, error) {
	var probe struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal(d.InputSchema, &probe); err != nil || probe.Type != "object" {
		return nil, fmt.Errorf("its input schema is not of type \"object\"")
	}
	t := &mcp.Tool{Name: d.Name, Title: d.Title, Description: d.Description, InputSchema: d.InputSchema, Meta: d.Meta}
	if len(d.OutputSchema) > 0 {
		t.OutputSchema = d.OutputSchema
	}
	if a := d.Annotations; a != nil {
		t.Annotations = &mcp.ToolAnnotations{Title: a.Title, ReadOnlyHint: a.ReadOnlyHint, DestructiveHint: a.DestructiveHint,
			IdempotentHint: a.IdempotentHint, OpenWorldHint: a.OpenWorldHint}
	}
	return t, nil
}

// snapshot returns the catalog served now.
func (g *Gateway) snapshot() (*toolset.Snapshot, []tool.Definition) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.served.snap, g.served.defs
}

// capabilities are what the gateway declares: tools (and their list
// changing), logging, and resources (with subscriptions), prompts,
// completions and the tasks extension when a server has them.
func (g *Gateway) capabilities() *mcp.ServerCapabilities {
	c := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}, Logging: &mcp.LoggingCapabilities{}}
	for _, st := range g.ts.Status() {
		p, ok := g.ts.Provider(st.Name)
		if !ok {
			continue
		}
		sc := p.ServerCapabilities()
		if sc == nil {
			continue
		}
		if sc.Resources != nil {
			if c.Resources == nil {
				c.Resources = &mcp.ResourceCapabilities{ListChanged: true}
			}
			c.Resources.Subscribe = c.Resources.Subscribe || sc.Resources.Subscribe
		}
		if sc.Prompts != nil {
			c.Prompts = &mcp.PromptCapabilities{ListChanged: true}
		}
		if sc.Completions != nil {
			c.Completions = &mcp.CompletionCapabilities{}
		}
		if sc.Extensions[tasksExtension] != nil {
			c.AddExtension(tasksExtension, map[string]any{})
		}
	}
	return c
}

// instructions joins what each server published on using its tools, each
// under its server's name. It is the servers' text, passed on as it is: the
// client decides what its model reads.
func (g *Gateway) instructions() string {
	byServer := g.ts.Instructions()
	var b strings.Builder
	for _, sc := range g.cfg.Servers {
		if text := byServer[sc.Name]; text != "" {
			fmt.Fprintf(&b, "## %s\n\n%s\n\n", sc.Name, strings.TrimSpace(text))
		}
	}
	return strings.TrimSpace(b.String())
}
