package mcptool

import (
	"context"
	"reflect"
	"time"
)

// refreshDebounce is how long the provider waits after a list_changed
// notification for more before listing again: servers often send a burst.
const refreshDebounce = 100 * time.Millisecond

// Refresh lists the server's tools again, now, and replaces what
// [Provider.Tools] offers. When the listing changed, the [WithToolsChanged]
// callback runs. Without discovery it does nothing.
func (p *Provider) Refresh(ctx context.Context) error {
	if !p.cfg.discover {
		return nil
	}
	s, err := p.live(operation{method: "tools/list"})
	if err != nil {
		return err
	}
	// A listing may take several pages, so it gets the longer of the two
	// bounds; p.request treats 0 as no bound, as the options promise.
	var cat *catalog
	err = p.request(ctx, s, operation{method: "tools/list"}, max(p.cfg.requestTimeout, p.cfg.connectTimeout), func(ctx context.Context, _ func()) error {
		var err error
		cat, err = p.discover(ctx, s)
		return err
	})
	if err != nil {
		return err
	}
	if old := s.cat.Swap(cat); !sameTools(old, cat) {
		p.toolsChanged()
	}
	return nil
}

// RefreshIfStale lists the tools again if the listing's time to live, which
// a 2026-07-28 server may set with ttlMs, has passed. A host calls it at the
// start of a turn, so that the tools never change within one.
func (p *Provider) RefreshIfStale(ctx context.Context) error {
	s := p.session()
	if s == nil {
		return nil
	}
	if exp := s.catalog().expires; exp.IsZero() || time.Now().Before(exp) {
		return nil
	}
	return p.Refresh(ctx)
}

// listChanged notes a notifications/tools/list_changed; the refresher lists
// again once the burst is over.
func (p *Provider) listChanged() {
	p.mu.Lock()
	ch := p.refreshes
	p.mu.Unlock()
	if ch == nil {
		return
	}
	select {
	case ch <- struct{}{}:
	default: // a refresh is already due
	}
}

// refresher runs the refreshes list_changed asks for, one at a time, until
// the provider closes.
func (p *Provider) refresher(life context.Context, requests <-chan struct{}) {
	defer p.bg.Done()
	for {
		select {
		case <-life.Done():
			return
		case <-requests:
		}
		t := time.NewTimer(refreshDebounce)
		select {
		case <-life.Done():
			t.Stop()
			return
		case <-t.C:
		}
		select { // notifications that came during the wait are covered
		case <-requests:
		default:
		}
		if err := p.Refresh(life); err != nil && life.Err() == nil {
			p.cfg.logger.Warn("could not list the tools again after list_changed", "server", p.name, "error", err)
		}
	}
}

func (p *Provider) toolsChanged() {
	p.cfg.logger.Info("the server's tools changed", "server", p.name)
	if fn := p.cfg.onToolsChanged; fn != nil {
		p.notifyMu.Lock()
		defer p.notifyMu.Unlock()
		fn()
	}
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
