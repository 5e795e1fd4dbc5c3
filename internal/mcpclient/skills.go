package mcpclient

import (
	"context"
	"sync"

	"github.com/mcpbridge/mcpbridge/internal/skills"
	"github.com/mcpbridge/mcpbridge/tool"
)

// skillShelf is the provider's client of the Skills extension, made when
// an Offer first finds the extension declared; it keeps the listing it
// offered and the skills loaded, so that a skill is listed and read once
// for all the runs that offer it.
type skillShelf struct {
	once   sync.Once
	client *skills.Client
}

// brings returns what the server of session s brings besides its tools.
func (p *Provider) brings(ctx context.Context, s *session) tool.Server {
	srv := tool.Server{Instructions: s.init.Instructions}
	c := s.init.Capabilities
	if c != nil && c.Resources != nil {
		srv.Resources = p.ReadForModel
	}
	if c != nil && skills.Declared(c.Extensions) {
		p.skills.once.Do(func() { p.skills.client = skills.New(p, skills.WithLogger(p.cfg.logger)) })
		list, err := p.skills.client.Offer(ctx)
		if err != nil && ctx.Err() == nil {
			p.cfg.logger.WarnContext(ctx, "the server's skills are left out: their listing failed", "server", p.name, "error", err)
		}
		srv.Skills = list
	}
	return srv
}
