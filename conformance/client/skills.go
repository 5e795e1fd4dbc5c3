package main

import (
	"context"
	"log"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/skills"
)

func init() {
	register(listSkills, "sep-2640-client-no-prefetch")
	register(useSkills,
		"sep-2640-client-verify-digest",
		"sep-2640-client-verify-size",
		"sep-2640-client-verify-frontmatter",
	)
}

// listSkills is a host that lists the skills, to show them to a model or a
// user, and is never asked for one: nothing of any skill may be read.
func listSkills(ctx context.Context, url string, _ scenarioContext) error {
	return withProvider(ctx, url, func(p *mcpclient.Provider) error {
		_, err := skills.New(p).List(ctx)
		return err
	}, mcpclient.WithoutDiscovery())
}

// useSkills acts as a host using the Skills extension (SEP-2640) through
// package skills: it lists the skills (reading no file), then loads each
// one, as a model asking for it would, and reads each of its files. The
// server serves some files whose size, digest or frontmatter differ from
// the listing; the suite checks that nothing was read before the load,
// and that a skill that fails verification is refused (a VerifyError here)
// rather than used.
func useSkills(ctx context.Context, url string, _ scenarioContext) error {
	return withProvider(ctx, url, func(p *mcpclient.Provider) error {
		c := skills.New(p)
		list, err := c.List(ctx)
		if err != nil {
			return err
		}
		for _, s := range list {
			loaded, err := c.Load(ctx, s.URI)
			if err != nil {
				log.Printf("skill %q refused: %v", s.URI, err)
				continue
			}
			for _, f := range s.Files {
				if f.Path == "SKILL.md" {
					continue // read and verified by Load
				}
				if _, err := loaded.ReadFile(ctx, f.Path); err != nil {
					log.Printf("skill %q file %q refused: %v", s.URI, f.Path, err)
					break
				}
			}
		}
		return nil
	}, mcpclient.WithoutDiscovery())
}
