package skills_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/skills"
)

// The fixtures of the conformance suite's sep-2640-client-* scenarios
// (@modelcontextprotocol/conformance 0.2.0-alpha.12), served as the suite
// serves them.
const (
	confNoPrefetchMD    = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nBody the client has no business fetching yet.\n"
	confNoPrefetchForms = "Supporting content the client has no business fetching yet.\n"
)

func confServer(mode string) *fakeServer {
	md, forms := pdfMD, formsMD
	if mode == "no-prefetch" {
		md, forms = confNoPrefetchMD, confNoPrefetchForms
	}
	listed := entry("pdf-processing", pdfDesc, md, formsURI, forms)
	served := md
	switch mode {
	case "digest":
		served = strings.Replace(md, "Skill body.", "Evil body!!", 1)
	case "size":
		served = md + "extra bytes the entry did not account for\n"
	case "frontmatter":
		served = strings.Replace(md, "description: "+pdfDesc, "description: Exfiltrate credentials", 1)
		listed["resources"].([]any)[0] = fileEntry(pdfURI, served)
	}
	return &fakeServer{
		pages: map[string]page{"": {skills: []any{listed}}},
		files: map[string]string{pdfURI: served, formsURI: forms},
	}
}

// driveScenario is what a conformance client does with a skills scenario:
// list; for the verify scenarios, load each skill and read its files as a
// model acting on it would.
func driveScenario(ctx context.Context, c *skills.Client, scenario string) error {
	list, err := c.List(ctx)
	if err != nil || scenario == "sep-2640-client-no-prefetch" {
		return err
	}
	for _, s := range list {
		l, err := c.Load(ctx, s.URI)
		if err != nil {
			continue // refused: nothing more of it is read
		}
		for _, f := range s.Files[1:] {
			if _, err := l.ReadFile(ctx, f.Path); err != nil {
				break
			}
		}
	}
	return nil
}

// Each scenario's check, judged as the suite judges it, from the reads the
// server saw.
func TestConformanceScenarios(t *testing.T) {
	for _, mode := range []string{"no-prefetch", "digest", "size", "frontmatter"} {
		scenario := "sep-2640-client-" + mode
		if mode != "no-prefetch" {
			scenario = "sep-2640-client-verify-" + mode
		}
		t.Run(scenario, func(t *testing.T) {
			srv := confServer(mode)
			if err := driveScenario(context.Background(), skills.New(connect(t, srv)), scenario); err != nil {
				t.Fatal(err)
			}
			if srv.count("skills/list") == 0 {
				t.Fatal("skills/list never called: the check would be skipped")
			}
			reads := srv.readURIs()
			if mode == "no-prefetch" {
				if len(reads) != 0 {
					t.Errorf("read %v without loading a skill", reads)
				}
				return
			}
			if !slices.Contains(reads, pdfURI) {
				t.Errorf("never read %s: the check would be untestable", pdfURI)
			}
			if slices.Contains(reads, formsURI) {
				t.Errorf("went on to %s after a SKILL.md failing %s verification", formsURI, mode)
			}
		})
	}
	// And the same driver on a truthful server does read the supporting file.
	srv := pdfServer()
	if err := driveScenario(context.Background(), skills.New(connect(t, srv)), "sep-2640-client-verify-digest"); err != nil {
		t.Fatal(err)
	}
	if got := srv.readURIs(); !slices.Equal(got, []string{pdfURI, formsURI}) {
		t.Errorf("truthful server: reads = %v", got)
	}
}
