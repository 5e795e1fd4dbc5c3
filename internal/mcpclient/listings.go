package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resources lists the server's resources, following every page as tools
// are listed: within the page cap ([WithMaxPages]) and the bounds of the
// listing in all ([WithMaxListing]), a cursor the server repeats failing
// the listing. An entry the server wrote as null is left
// out. A server that declares no resources capability is not asked: the
// list is empty.
func (p *Provider) Resources(ctx context.Context) ([]*mcp.Resource, error) {
	return listAll(ctx, p, "resources/list", func(caps *mcp.ServerCapabilities) bool { return caps.Resources != nil },
		func(ctx context.Context, cs *mcp.ClientSession, cursor string) ([]*mcp.Resource, string, error) {
			res, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return res.Resources, res.NextCursor, nil
		})
}

// ResourceTemplates lists the server's resource templates, as [Provider.Resources]
// lists its resources.
func (p *Provider) ResourceTemplates(ctx context.Context) ([]*mcp.ResourceTemplate, error) {
	return listAll(ctx, p, "resources/templates/list", func(caps *mcp.ServerCapabilities) bool { return caps.Resources != nil },
		func(ctx context.Context, cs *mcp.ClientSession, cursor string) ([]*mcp.ResourceTemplate, string, error) {
			res, err := cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return res.ResourceTemplates, res.NextCursor, nil
		})
}

// Prompts lists the server's prompts, as [Provider.Resources] lists its
// resources; a server that declares no prompts capability is not asked.
func (p *Provider) Prompts(ctx context.Context) ([]*mcp.Prompt, error) {
	return listAll(ctx, p, "prompts/list", func(caps *mcp.ServerCapabilities) bool { return caps.Prompts != nil },
		func(ctx context.Context, cs *mcp.ClientSession, cursor string) ([]*mcp.Prompt, string, error) {
			res, err := cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return res.Prompts, res.NextCursor, nil
		})
}

// listAll lists every item of method, page by page ([listPages]),
// within the request timeout, leaving out null items; declared says
// whether the server's capabilities offer the listing at all.
func listAll[T any](ctx context.Context, p *Provider, method string, declared func(*mcp.ServerCapabilities) bool,
	page func(ctx context.Context, cs *mcp.ClientSession, cursor string) ([]*T, string, error)) ([]*T, error) {
	op := operation{method: method}
	s, err := p.conn.live(op)
	if err != nil {
		return nil, err
	}
	if caps := s.init.Capabilities; caps == nil || !declared(caps) {
		return nil, nil
	}
	var out []*T
	err = p.request(ctx, s, op, p.cfg.requestTimeout(), func(ctx context.Context, _ func()) error {
		return listPages(p, method, func(cursor string) ([]*T, string, error) {
			return page(ctx, s.cs, cursor)
		}, func(it *T) bool {
			out = append(out, it)
			return true
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ListRaw follows the pages of a listing that go-sdk does not model
// (skills/list, say) through the one pager of every listing: each page is
// a raw request with the cursor, its entries the array under member, each
// given to keep as the server wrote it (keep returns false to end the
// listing there). Its bounds are every listing's: a repeated cursor, the
// page cap ([WithMaxPages]) and the entries and bytes in all
// ([WithMaxListing]) each fail it, after the pages before were kept.
func (p *Provider) ListRaw(ctx context.Context, method, member string, keep func(entry json.RawMessage) bool) error {
	return listPages(p, method, func(cursor string) ([]*json.RawMessage, string, error) {
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		raw, err := p.Request(ctx, method, params)
		if err != nil {
			return nil, "", err
		}
		var page map[string]json.RawMessage // members as written: json's field match ignores case
		var entries []*json.RawMessage
		var next string
		malformed := func(err error) error { return &ProtocolError{Server: p.name, Op: method, Err: err} }
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, "", malformed(err)
		}
		if list := page[member]; list != nil {
			if err := json.Unmarshal(list, &entries); err != nil {
				return nil, "", malformed(fmt.Errorf("%s: %w", member, err))
			}
		}
		if c := page["nextCursor"]; c != nil && string(c) != "null" && json.Unmarshal(c, &next) != nil {
			return nil, "", malformed(errors.New("nextCursor is not a string"))
		}
		return entries, next, nil
	}, func(e *json.RawMessage) bool { return keep(*e) })
}
