package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/plural"
	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
	"github.com/mcpbridge/mcpbridge/internal/toolschema"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/tool"
)

// catalog is what discovery learnt: every listed tool, and the names of
// those offered to the model, in the server's order.
type catalog struct {
	listed  map[string]*listedTool
	offered []string
	offers  map[string]bool
	// expires is when the listing goes stale by the server's ttlMs, or zero.
	expires time.Time
}

// listedTool is one tool of the listing with its schemas compiled: the
// output schema at listing, the input schema at the tool's first call
// through the handler ([Provider.arguments]).
type listedTool struct {
	def       tool.Definition
	output    *toolschema.Validator // nil when the tool declares none
	outputErr error                 // why the declared output schema cannot be used

	inputOnce sync.Once
	input     *toolschema.Validator // nil until compiled, or if it does not compile

	taskSupport string // execution.taskSupport (2025-11-25): taskOptional, taskRequired, or ""
}

// discover lists the server's tools, following every cursor ([listPages]).
// A tool an MCP App keeps for itself is listed, not offered.
//
// On protocol 2026-07-28, a positive ttlMs on the listing sets when it goes
// stale ([Provider.RefreshIfStale]). A ttlMs of 0 is read as no hint, not as
// "stale at once": go-sdk cannot tell it from an absent one, and re-listing on
// every turn would change the tools under the model and defeat prompt
// caching; such servers announce changes with list_changed. cacheScope does
// not matter here: the listing is kept for this connection only.
func (p *Provider) discover(ctx context.Context, s *session) (*catalog, error) {
	defer s.schemas.Settle()
	cs := s.cs
	cat := &catalog{listed: map[string]*listedTool{}, offers: map[string]bool{}}
	start := time.Now()
	ttl := time.Duration(0)
	err := listPages(p, "tools/list", func(cursor string) ([]*mcp.Tool, string, error) {
		res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		if page := time.Duration(res.TTLMs) * time.Millisecond; page > 0 && (ttl == 0 || page < ttl) && s.init.ProtocolVersion >= "2026-07-28" {
			ttl = page
		}
		return res.Tools, res.NextCursor, nil
	}, func(t *mcp.Tool) bool {
		p.add(cat, t, s.schemas)
		return true
	})
	if err != nil {
		return cat, err
	}
	if ttl > 0 {
		cat.expires = start.Add(ttl)
	}
	if p.cfg.allowedTools != nil {
		for _, name := range p.cfg.allowedTools {
			if cat.listed[name] == nil {
				p.cfg.logger.WarnContext(ctx, "allowed tool not offered by the server", "server", p.name, "tool", name)
			}
		}
	}
	return cat, nil
}

// listPages follows the pages of the listing method, the one pager of every
// listing: page gets each cursor, "" first, and returns the page's entries
// and the next cursor, "" at the end; keep takes each entry but a null one,
// and returns false to end the listing there (it found what it sought).
//
// It refuses a cursor seen before (a listing that would never end), more
// pages than [WithMaxPages], and more entries, or more bytes of them as
// they encode, than [WithMaxListing] allows in all: a page that passes a
// bound fails the listing before any of its entries is kept, so that what
// the host holds of a listing is bounded, not only each message.
func listPages[T any](p *Provider, method string, page func(cursor string) (entries []*T, next string, err error), keep func(*T) bool) error {
	seen := map[string]bool{}
	cursor := ""
	items, size := 0, 0
	for n := 1; ; n++ {
		entries, next, err := page(cursor)
		if err != nil {
			return p.classify(method, err, false)
		}
		if err := within(p, method, n, entries, &items, &size); err != nil {
			return err
		}
		for _, e := range entries {
			if e != nil && !keep(e) {
				return nil
			}
		}
		if next == "" {
			return nil
		}
		if seen[next] {
			return &ProtocolError{Server: p.name, Op: method, Err: fmt.Errorf("cursor %q repeated on page %d: the listing would never end", next, n+1)}
		}
		if n == p.cfg.maxPages() {
			return &ProtocolError{Server: p.name, Op: method, Err: fmt.Errorf("more than %s (raise the page cap with WithMaxPages)", plural.Count(n, "page", "pages"))}
		}
		seen[next] = true
		cursor = next
	}
}

// within adds page n's entries to what the listing holds so far, items
// and size, and refuses the page if the listing passes a bound of
// [WithMaxListing]. The entries are counted first, so that a page with too
// many is not encoded at all; the bytes are those of each entry encoded
// again, as go-sdk keeps no message's size.
func within[T any](p *Provider, method string, n int, entries []*T, items, size *int) error {
	over := func(bound int, one, many string) error {
		return &ProtocolError{Server: p.name, Op: method, Err: fmt.Errorf("page %d takes the listing past %s in all (WithMaxListing bounds it)", n, plural.Count(bound, one, many))}
	}
	if *items += len(entries); *items > p.cfg.maxListed() {
		return over(p.cfg.maxListed(), "entry", "entries")
	}
	for _, e := range entries {
		if e == nil {
			continue
		}
		data, err := json.Marshal(e)
		if err != nil {
			return &ProtocolError{Server: p.name, Op: method, Err: fmt.Errorf("page %d: %w", n, err)}
		}
		if *size += len(data); *size > p.cfg.maxListedBytes() {
			return over(p.cfg.maxListedBytes(), "byte", "bytes")
		}
	}
	return nil
}

func (p *Provider) add(cat *catalog, t *mcp.Tool, schemas *sdkfix.Schemas) {
	if t == nil || cat.listed[t.Name] != nil {
		p.cfg.logger.Debug("tool listed twice; keeping the first", "server", p.name)
		return
	}
	lt := &listedTool{def: p.definition(t, schemas), taskSupport: taskSupportOf(schemas.Execution(t.Name))}
	if len(lt.def.OutputSchema) > 0 {
		// A $ref resolves within the schema only, never over the network;
		// a loosely declared draft is read as the input schemas are; a
		// schema no validation could finish on is refused here.
		lt.output, lt.outputErr = toolschema.Compile(lt.def.OutputSchema)
	}
	cat.listed[t.Name] = lt
	if p.offer(t.Name) && forModel(lt.def.App()) {
		cat.offered = append(cat.offered, t.Name)
		cat.offers[t.Name] = true
	}
}

func (p *Provider) offer(name string) bool {
	if p.cfg.toolFilter != nil && !p.cfg.toolFilter(name) {
		return false
	}
	return p.cfg.allowedTools == nil || slices.Contains(p.cfg.allowedTools, name)
}

// definition converts a listed tool, cutting its description to the maximum
// and taking its schemas as the server wrote them when schemas has them.
func (p *Provider) definition(t *mcp.Tool, schemas *sdkfix.Schemas) tool.Definition {
	def := tool.Definition{
		Name:        t.Name,
		Origin:      tool.Origin{Server: p.name, Tool: t.Name},
		Title:       t.Title,
		Description: untrusted.Cut(t.Description, p.cfg.maxDescription()),
		Meta:        maps.Clone(t.Meta),
	}
	def.InputSchema = schemas.Schema(t.Name, false, t.InputSchema)
	def.OutputSchema = schemas.Schema(t.Name, true, t.OutputSchema)
	if def.Meta != nil {
		def.Meta = deepCopy(def.Meta)
	}
	if a := t.Annotations; a != nil {
		def.Annotations = &tool.Annotations{
			Title:           a.Title,
			ReadOnlyHint:    a.ReadOnlyHint,
			DestructiveHint: a.DestructiveHint,
			IdempotentHint:  a.IdempotentHint,
			OpenWorldHint:   a.OpenWorldHint,
		}
	}
	return def
}
