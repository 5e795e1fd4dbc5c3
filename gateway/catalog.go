package gateway

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/internal/gate"
	"github.com/mcpbridge/mcpbridge/internal/handle"
	"github.com/mcpbridge/mcpbridge/internal/names"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/tool"
)

// served is what the gateway's servers serve now, each item by the hash of
// what a client reads of it, so that a re-listing that changes nothing
// notifies no one.
type served struct {
	snap      *catalog.Snapshot
	defs      []tool.Definition     // the catalog as listed, policy applied
	index     *names.Index          // defs, for find_tools (disclosure.go)
	policy    *gate.Policy          // the policy, knowing the catalog's names
	tools     map[string][32]byte   // name → hash
	serverOf  map[string]string     // a tool's name and alias → its server (inflight.go)
	resources map[string]servedItem // URI → server
	templates map[string]servedItem // URI template → server
	prompts   map[string]servedItem // final name → server
	level     mcp.LoggingLevel      // the servers' log level, "" for none asked

	// clients maps a client's name to its own policy, knowing the
	// catalog's names (clients.go).
	clients map[string]*gate.Policy
	// reach maps a client with a policy of its own to the servers it is
	// allowed anything of, anyone are the servers anything is served of
	// (reach.go).
	reach  map[string]map[string]bool
	anyone map[string]bool
}

// A servedItem is a resource, resource template or prompt the gateway
// serves: the server it is of, its name there, its name as the gateway
// serves it (which policies judge, reach.go), and the hash of what a
// client reads of it.
type servedItem struct {
	server, name, served string
	hash                 [32]byte
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
		pol = handle.Core[gate.Policy](g.o.policy).For(defs)
		defs = slices.DeleteFunc(defs, func(d tool.Definition) bool { return !pol.Allowed(d.Name) })
	}
	clients := g.clientPolicies(defs)
	index := g.searchIndex()
	if !index.Same(defs) {
		index = names.NewIndex(defs)
	}
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
	serverOf := make(map[string]string, 2*len(defs))
	for _, d := range defs {
		serverOf[d.Name], serverOf[d.Origin.Alias()] = d.Origin.Server, d.Origin.Server
	}
	g.served.snap, g.served.defs, g.served.policy, g.served.tools, g.served.clients = snap, defs, pol, now, clients
	g.served.serverOf, g.served.index = serverOf, index
	g.reckon()
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
func (g *Gateway) snapshot() (*catalog.Snapshot, []tool.Definition) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.served.snap, g.served.defs
}

// searchIndex returns the index of the catalog served now, nil before
// the first.
func (g *Gateway) searchIndex() *names.Index {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.served.index
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

// maxInstructions is how many characters of one server's instructions the
// gateway passes on, as many as the agent puts in its prompt.
const maxInstructions = 8192

// instructionsPreamble opens the gateway's instructions, so that a reader
// knows which lines are a server's.
const instructionsPreamble = `Each section below holds what an MCP server behind this gateway said about using its tools, under the server's name; every line of a server's text begins with "> ".`

// instructions joins what each server shown (nil: every server)
// published on using its tools, each under a heading with its server's
// name. A server's text is quoted as the agent quotes it
// ([untrusted.Quote]: nothing invisible, every line begun with "> "), so
// that no server writes a heading, and with it a section in another's
// name; it is cut to maxInstructions characters.
func (g *Gateway) instructions(shown func(server string) bool) string {
	byServer := g.ts.Instructions()
	var b strings.Builder
	for _, sc := range g.cfg.Servers {
		if shown != nil && !shown(sc.Name) {
			continue
		}
		text := strings.TrimSpace(untrusted.Text(byServer[sc.Name]))
		if text == "" {
			continue
		}
		if cut := untrusted.Cut(text, maxInstructions); cut != text {
			g.log.Warn("gateway: server instructions cut", "server", sc.Name, "limit", maxInstructions)
			text = cut
		}
		if b.Len() == 0 {
			b.WriteString(instructionsPreamble)
		}
		fmt.Fprintf(&b, "\n\n## %s\n\n%s", sc.Name, untrusted.Quote(text))
	}
	return b.String()
}
