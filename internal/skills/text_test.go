package skills_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/skills"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
)

// A URI (of a skill or of one of its files) with white space, a line break
// or an invisible character breaks the entry: it is left out of the listing,
// and the error that names it stays on one line.
func TestEntriesWithUnprintableURIsRefused(t *testing.T) {
	p := mcpclient.FromTransport("gm", hostile.Piped(t, "skills-hostile"))
	defer p.Close()
	ctx := context.Background()
	if err := p.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	c := skills.New(p)
	list, err := c.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, s := range list {
		uris = append(uris, s.URI)
	}
	if len(uris) != 1 || uris[0] != "skill://good/cooking/SKILL.md" {
		t.Fatalf("listed %q, want only skill://good/cooking/SKILL.md", uris)
	}
	for _, uri := range []string{hostile.HostileURI, "skill://spaced /baking/SKILL.md", "skill://sep\u2028/frying/SKILL.md", "skill://x/boiling/SKILL.md"} {
		_, err := c.Load(ctx, uri)
		var ee *skills.EntryError
		if !errors.As(err, &ee) {
			t.Fatalf("Load(%q) = %v, want an EntryError", uri, err)
		}
		if msg := err.Error(); strings.ContainsAny(msg, "\n\u2028") {
			t.Errorf("the error is not one line: %q", msg)
		}
	}
	if _, err := c.Load(ctx, "cooking"); err != nil {
		t.Fatalf("the clean skill: %v", err)
	}
}
