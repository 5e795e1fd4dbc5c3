package mcpclient

import (
	"context"
	"reflect"
	"time"
)

// Refresh lists the server's tools again, now, and replaces what
// [Provider.Tools] offers. When the listing changed, the [WithToolsChanged]
// callback runs. Without discovery it does nothing.
func (p *Provider) Refresh(ctx context.Context) error {
	if p.cfg.noDiscovery {
		return nil
	}
	s, err := p.conn.live(operation{method: "tools/list"})
	if err != nil {
		return err
	}
	// A listing may take several pages, so it gets the longer of the two
	// bounds; p.request treats 0 as no bound.
	var cat *catalog
	err = p.request(ctx, s, operation{method: "tools/list"}, max(p.cfg.requestTimeout(), p.cfg.connectTimeout()), func(ctx context.Context, _ func()) error {
		var err error
		cat, err = p.discover(ctx, s)
		return err
	})
	if err != nil {
		return err
	}
	if old := s.cat.Swap(cat); !sameTools(old, cat) {
		p.conn.toolsChanged()
	}
	return nil
}

// RefreshIfStale lists the tools again if the listing's time to live, which
// a 2026-07-28 server may set with ttlMs, has passed. A host calls it at the
// start of a turn, so that the tools never change within one.
func (p *Provider) RefreshIfStale(ctx context.Context) error {
	s := p.conn.current()
	if s == nil {
		return nil
	}
	if exp := s.catalog().expires; exp.IsZero() || time.Now().Before(exp) {
		return nil
	}
	return p.Refresh(ctx)
}

// sameTools reports whether two listings offer the same tools.
func sameTools(a, b *catalog) bool {
	if a == nil || b == nil {
		return a == b
	}
	if !reflect.DeepEqual(a.offered, b.offered) || len(a.listed) != len(b.listed) {
		return false
	}
	for name, t := range a.listed {
		u := b.listed[name]
		if u == nil || !reflect.DeepEqual(t.def, u.def) {
			return false
		}
	}
	return true
}
