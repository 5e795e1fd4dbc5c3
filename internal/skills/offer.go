package skills

import (
	"context"
	"sync"

	"github.com/mcpbridge/mcpbridge/tool"
)

// offers is what [Client.Offer] keeps: the listing it offered, and the
// skills loaded through it.
type offers struct {
	mu     sync.Mutex
	skills []tool.Skill          // nil until a listing succeeded
	loads  map[string]*skillLoad // by URI and entry
}

// A skillLoad is one load of a skill: the calls that ask for the skill
// while it runs wait for it and share its outcome, and once it has
// succeeded every later call does.
type skillLoad struct {
	done chan struct{}
	l    *Loaded
	err  error
	// cancelled reports that the loading call's context ended, which says
	// nothing about the skill: a waiting call loads it anew.
	cancelled bool
}

// Offer returns the server's skills as a host offers them to a model: the
// first listing that succeeds, kept for the Client's life (a failed one is
// tried again at the next Offer), each skill's functions loading and
// reading through c. A skill is loaded once, however often and by however
// many calls at once its Load or ReadFile is called: SKILL.md is read
// once, and its files are read through the entry it was loaded under,
// every read verified. A load that fails is tried again by the next call.
func (c *Client) Offer(ctx context.Context) ([]tool.Skill, error) {
	c.offers.mu.Lock()
	kept := c.offers.skills
	c.offers.mu.Unlock()
	if kept != nil {
		return kept, nil
	}
	listed, err := c.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]tool.Skill, 0, len(listed))
	for _, s := range listed {
		out = append(out, c.offered(s))
	}
	c.offers.mu.Lock()
	defer c.offers.mu.Unlock()
	if c.offers.skills == nil {
		c.offers.skills = out
	}
	return c.offers.skills, nil
}

// offered is s as a host offers it.
func (c *Client) offered(s Skill) tool.Skill {
	return tool.Skill{
		Name: s.Name, Description: s.Description, URI: s.URI,
		Load: func(ctx context.Context) (string, map[string]int64, error) {
			l, err := c.loadOnce(ctx, s)
			if err != nil {
				return "", nil, err
			}
			files := map[string]int64{}
			for _, f := range l.Skill.Files[min(1, len(l.Skill.Files)):] { // SKILL.md is first
				files[f.Path] = f.Size
			}
			return l.Body(), files, nil
		},
		ReadFile: func(ctx context.Context, path string) ([]byte, error) {
			l, err := c.loadOnce(ctx, s)
			if err != nil {
				return nil, err
			}
			return l.ReadFile(ctx, path)
		},
	}
}

// loadOnce returns s loaded, loading it if no call has yet, or waiting for
// the call that is.
func (c *Client) loadOnce(ctx context.Context, s Skill) (*Loaded, error) {
	key := s.URI + "\x00" + s.fingerprint
	for {
		c.offers.mu.Lock()
		if c.offers.loads == nil {
			c.offers.loads = map[string]*skillLoad{}
		}
		ld := c.offers.loads[key]
		if ld == nil {
			ld = &skillLoad{done: make(chan struct{})}
			c.offers.loads[key] = ld
			c.offers.mu.Unlock()
			ld.l, ld.err = c.Load(ctx, s.URI)
			if ld.err != nil {
				// Not kept: the next call tries again.
				ld.cancelled = ctx.Err() != nil
				c.offers.mu.Lock()
				delete(c.offers.loads, key)
				c.offers.mu.Unlock()
			}
			close(ld.done)
		} else {
			c.offers.mu.Unlock()
		}
		select {
		case <-ld.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		switch {
		case ld.err == nil:
			return ld.l, nil
		case !ld.cancelled || ctx.Err() != nil:
			return nil, ld.err
		}
	}
}
