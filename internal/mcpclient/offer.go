package mcpclient

import (
	"context"

	"github.com/mcpbridge/mcpbridge/tool"
)

var _ tool.Source = (*Provider)(nil)

// Offer returns the tools the provider offers now ([Provider.Tools]) and a
// handler that serves exactly those, whatever the server lists later: the
// [tool.Source] an agent takes one Set of per run. It first lists the tools
// again if the listing's time to live has passed (a failure is logged and
// the old listing kept). A provider that is not connected (or closed)
// offers nothing: the error is a [TransportError] wrapping
// [ErrNotConnected]. One whose connection is being rebuilt offers its last
// listing, whose calls fail meanwhile as retryable. The Set's Servers holds,
// under the provider's name, what the server brings besides: its
// instructions, its skills when it declares the Skills extension (listed
// at the first Offer; a failed listing is logged and tried again at the
// next), and a reader of its resources ([Provider.ReadForModel]) when it
// declares the resources capability.
func (p *Provider) Offer(ctx context.Context) (tool.Set, error) {
	if err := p.RefreshIfStale(ctx); err != nil && ctx.Err() == nil {
		p.cfg.logger.WarnContext(ctx, "stale tool listing not refreshed; keeping the old one", "server", p.name, "error", err)
	}
	s := p.conn.current()
	if s == nil {
		return tool.Set{}, &TransportError{Server: p.name, Op: "offer", Err: ErrNotConnected}
	}
	cat := s.catalog()
	set := tool.Set{Definitions: cat.definitions(), Handler: &handler{p: p, cat: cat}}
	if srv := p.brings(ctx, s); srv.Instructions != "" || len(srv.Skills) > 0 || srv.Resources != nil {
		set.Servers = map[string]tool.Server{p.name: srv}
	}
	return set, nil
}

// definitions returns the offered tools' definitions, in the server's order.
func (c *catalog) definitions() []tool.Definition {
	defs := make([]tool.Definition, len(c.offered))
	for i, name := range c.offered {
		defs[i] = c.listed[name].def
	}
	return defs
}
