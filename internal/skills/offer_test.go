package skills_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/skills"
)

// Offer lists once for the Client's life, reading no file; a skill's Load
// reads its SKILL.md once, however often it is called, and its ReadFile
// reads through the loaded entry. A failed listing is tried again.
func TestOffer(t *testing.T) {
	ctx := context.Background()
	srv := pdfServer()
	pages := srv.pages
	srv.set(func(f *fakeServer) { f.pages = nil })
	c := skills.New(connect(t, srv))
	if _, err := c.Offer(ctx); err == nil {
		t.Fatal("a failed listing offered skills")
	}
	srv.set(func(f *fakeServer) { f.pages = pages })
	var offered []string
	for range 2 {
		list, err := c.Offer(ctx)
		if err != nil {
			t.Fatal(err)
		}
		offered = offered[:0]
		for _, s := range list {
			offered = append(offered, s.Name+" "+s.URI+" "+s.Description)
		}
	}
	if want := []string{"pdf-processing " + pdfURI + " " + pdfDesc}; !slices.Equal(offered, want) {
		t.Fatalf("offered %q, want %q", offered, want)
	}
	if n, reads := srv.count("skills/list"), srv.readURIs(); n != 2 || len(reads) != 0 {
		t.Fatalf("%d listings (want the failed one and one more) and reads %v (want none)", n, reads)
	}
	list, _ := c.Offer(ctx)
	s := list[0]
	for range 3 {
		body, files, err := s.Load(ctx)
		if err != nil || body != "\nSkill body.\n" || !maps.Equal(files, map[string]int64{"references/FORMS.md": int64(len(formsMD))}) {
			t.Fatalf("Load: %q, %v, %v", body, files, err)
		}
	}
	if data, err := s.ReadFile(ctx, "references/FORMS.md"); err != nil || string(data) != formsMD {
		t.Fatalf("ReadFile: %q, %v", data, err)
	}
	if _, err := s.ReadFile(ctx, "../secrets.md"); asVerify(t, err).Field != "listed" {
		t.Fatalf("an unlisted file: %v", err)
	}
	if got := srv.readURIs(); !slices.Equal(got, []string{pdfURI, formsURI}) {
		t.Errorf("read %v, want the SKILL.md once, then the file", got)
	}
}
