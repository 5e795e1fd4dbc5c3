package skills_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/skills"
)

const (
	pdfURI   = "skill://pdf-processing/SKILL.md"
	formsURI = "skill://pdf-processing/references/FORMS.md"
	pdfDesc  = "Extract, fill, and assemble PDF documents"
	pdfMD    = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n"
	formsMD  = "Supporting content.\n"
)

// pdfServer serves the pdf-processing skill as listed, unless a test
// changes what it serves.
func pdfServer() *fakeServer {
	return &fakeServer{
		pages: map[string]page{"": {skills: []any{entry("pdf-processing", pdfDesc, pdfMD, formsURI, formsMD)}}},
		files: map[string]string{pdfURI: pdfMD, formsURI: formsMD},
	}
}

func asVerify(t *testing.T, err error) *skills.VerifyError {
	t.Helper()
	var ve *skills.VerifyError
	if !errors.As(err, &ve) {
		t.Fatalf("error = %v, want a *skills.VerifyError", err)
	}
	return ve
}

// A listing reads no file; loading reads the SKILL.md alone; each supporting
// file is read when asked for, verified.
func TestListLoadRead(t *testing.T) {
	ctx := context.Background()
	srv := pdfServer()
	c := skills.New(connect(t, srv))

	list, err := c.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Fatalf("listed %d skills, want 1", len(list))
	}
	s := list[0]
	if s.URI != pdfURI || s.Name != "pdf-processing" || s.Description != pdfDesc || s.Dynamic || s.Root() != "skill://pdf-processing" {
		t.Errorf("skill = %+v", s)
	}
	wantFiles := []skills.File{
		{URI: pdfURI, Path: "SKILL.md", Size: int64(len(pdfMD)), Digest: sha(pdfMD)},
		{URI: formsURI, Path: "references/FORMS.md", Size: int64(len(formsMD)), Digest: sha(formsMD)},
	}
	if !slices.Equal(s.Files, wantFiles) {
		t.Errorf("files = %+v, want %+v", s.Files, wantFiles)
	}
	if n := srv.count("resources/read"); n != 0 {
		t.Fatalf("listing made %d resources/read requests, want none", n)
	}

	l, err := c.Load(ctx, "pdf-processing")
	if err != nil {
		t.Fatal(err)
	}
	if string(l.Content) != pdfMD || l.Body() != "\nSkill body.\n" {
		t.Errorf("content = %q, body = %q", l.Content, l.Body())
	}
	if got := srv.readURIs(); !slices.Equal(got, []string{pdfURI}) {
		t.Fatalf("loading read %v, want the SKILL.md alone", got)
	}

	for _, name := range []string{"references/FORMS.md", formsURI} {
		data, err := l.ReadFile(ctx, name)
		if err != nil || string(data) != formsMD {
			t.Errorf("ReadFile(%q) = %q, %v", name, data, err)
		}
	}
	for _, name := range []string{"references/NOPE.md", "../other/SKILL.md", "skill://other/SKILL.md"} {
		_, err := l.ReadFile(ctx, name)
		if ve := asVerify(t, err); ve.Field != "listed" || ve.Skill != "pdf-processing" {
			t.Errorf("ReadFile(%q): %+v", name, ve)
		}
	}
	if n := srv.count("resources/read"); n != 3 {
		t.Errorf("%d resources/read requests, want 3 (unlisted files are never asked for)", n)
	}
	// An unlisted name refused nothing.
	if _, err := l.ReadFile(ctx, "references/FORMS.md"); err != nil {
		t.Errorf("after an unlisted read: %v", err)
	}
}

// Listing follows every page, in order, and still reads no file.
func TestListPaginates(t *testing.T) {
	srv := &fakeServer{pages: map[string]page{
		"":   {skills: []any{entry("alpha", "first", skillMD("alpha", "first", ""))}, next: "c2"},
		"c2": {skills: []any{entry("beta", "second", skillMD("beta", "second", "")), entry("gamma", "third", skillMD("gamma", "third", ""))}, next: "c3"},
		"c3": {skills: []any{entry("acme/delta", "fourth", skillMD("delta", "fourth", ""))}},
	}}
	list, err := skills.New(connect(t, srv)).List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range list {
		names = append(names, s.Name)
	}
	if want := []string{"alpha", "beta", "gamma", "delta"}; !slices.Equal(names, want) {
		t.Errorf("names = %v, want %v", names, want)
	}
	if n := srv.count("skills/list"); n != 3 {
		t.Errorf("%d skills/list requests, want 3", n)
	}
	if n := srv.count("resources/read"); n != 0 {
		t.Errorf("%d resources/read requests, want none", n)
	}
}

// skills/list is paged as every listing is, by the provider's one pager:
// a cursor that comes back again, more pages than WithMaxPages, and more
// entries or bytes in all than WithMaxListing each end the listing, and
// List returns the skills read before it with the error.
func TestListBoundedAsEveryListing(t *testing.T) {
	one := func(name string) []any { return []any{entry(name, "d", skillMD(name, "d", ""))} }
	two := func(a, b string) []any { return append(one(a), one(b)...) }
	for _, tc := range []struct {
		name  string
		pages map[string]page
		opts  []mcpclient.Option
		want  string // in the error
		read  int    // skills/list requests
		kept  int    // skills returned with the error
	}{
		{"repeated cursor", map[string]page{"": {skills: one("alpha"), next: "loop"}, "loop": {skills: one("beta"), next: "loop"}},
			nil, `cursor "loop" repeated on page 3`, 2, 2},
		{"pages", map[string]page{"": {skills: one("a"), next: "c1"}, "c1": {skills: one("b"), next: "c2"}, "c2": {skills: one("c"), next: "c3"}, "c3": {}},
			[]mcpclient.Option{mcpclient.WithMaxPages(3)}, "more than 3 pages", 3, 3},
		{"entries", map[string]page{"": {skills: two("a", "b"), next: "c1"}, "c1": {skills: two("c", "d")}},
			[]mcpclient.Option{mcpclient.WithMaxListing(3, 0)}, "past 3 entries in all", 2, 2},
		{"bytes", map[string]page{"": {skills: two("a", "b"), next: "c1"}, "c1": {skills: two("c", "d")}},
			[]mcpclient.Option{mcpclient.WithMaxListing(0, 600)}, "bytes in all", 2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &fakeServer{pages: tc.pages}
			list, err := skills.New(connect(t, srv, tc.opts...)).List(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "skills/list") {
				t.Fatalf("error = %v; want one naming skills/list and %q", err, tc.want)
			}
			if len(list) != tc.kept || srv.count("skills/list") != tc.read {
				t.Fatalf("%d skills kept after %d skills/list; want %d after %d", len(list), srv.count("skills/list"), tc.kept, tc.read)
			}
		})
	}
}

// Each kind of mismatch in a SKILL.md refuses the skill with a VerifyError
// naming skill, file and field, reads nothing more, and keeps the skill
// refused without reading it again.
func TestLoadRefusesMismatch(t *testing.T) {
	const evil = "---\nname: pdf-processing\ndescription: Exfiltrate credentials\n---\n\nSkill body.\n"
	cases := []struct {
		name   string
		listed map[string]any // the entry; nil for the truthful one
		served string         // the SKILL.md served
		field  string
		want   string
		got    string
	}{
		{
			name: "size lies",
			listed: func() map[string]any {
				e := entry("pdf-processing", pdfDesc, pdfMD, formsURI, formsMD)
				e["resources"].([]any)[0].(map[string]any)["size"] = len(pdfMD) + 1
				return e
			}(),
			served: pdfMD,
			field:  "size", want: strconv.Itoa(len(pdfMD) + 1), got: strconv.Itoa(len(pdfMD)),
		},
		{
			name:   "bytes appended",
			served: pdfMD + "extra bytes the entry did not account for\n",
			field:  "size", want: strconv.Itoa(len(pdfMD)), got: strconv.Itoa(len(pdfMD) + 42),
		},
		{
			name:   "digest lies",
			served: strings.Replace(pdfMD, "Skill body.", "Evil body!!", 1),
			field:  "digest", want: sha(pdfMD), got: sha(strings.Replace(pdfMD, "Skill body.", "Evil body!!", 1)),
		},
		{
			name:   "frontmatter differs",
			listed: map[string]any{"uri": pdfURI, "frontmatter": map[string]any{"name": "pdf-processing", "description": pdfDesc}, "resources": []any{fileEntry(pdfURI, evil), fileEntry(formsURI, formsMD)}},
			served: evil,
			field:  "frontmatter.description", want: strconv.Quote(pdfDesc), got: `"Exfiltrate credentials"`,
		},
		{
			name: "frontmatter has an unlisted field",
			listed: map[string]any{"uri": pdfURI, "frontmatter": map[string]any{"name": "pdf-processing", "description": pdfDesc},
				"resources": []any{fileEntry(pdfURI, strings.Replace(pdfMD, "---\n\n", "allowed-tools: Bash\n---\n\n", 1))}},
			served: strings.Replace(pdfMD, "---\n\n", "allowed-tools: Bash\n---\n\n", 1),
			field:  "frontmatter.allowed-tools", want: "null", got: `"Bash"`,
		},
		{
			name: "no frontmatter",
			listed: map[string]any{"uri": pdfURI, "frontmatter": map[string]any{"name": "pdf-processing", "description": pdfDesc},
				"resources": []any{fileEntry(pdfURI, "# PDF\n\nSkill body.\n")}},
			served: "# PDF\n\nSkill body.\n",
			field:  "frontmatter",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			srv := pdfServer()
			if tc.listed != nil {
				srv.pages[""] = page{skills: []any{tc.listed}}
			}
			srv.files[pdfURI] = tc.served
			c := skills.New(connect(t, srv))
			if _, err := c.List(ctx); err != nil {
				t.Fatal(err)
			}
			l, err := c.Load(ctx, "pdf-processing")
			if l != nil {
				t.Fatal("a Loaded came back with the error")
			}
			ve := asVerify(t, err)
			if ve.Skill != "pdf-processing" || ve.URI != pdfURI || ve.File != pdfURI || ve.Field != tc.field {
				t.Errorf("error = %+v", ve)
			}
			if tc.want != "" && (ve.Want != tc.want || ve.Got != tc.got) {
				t.Errorf("want/got = %s/%s, want %s/%s", ve.Want, ve.Got, tc.want, tc.got)
			}
			msg := err.Error()
			if !strings.Contains(msg, `"pdf-processing"`) || !strings.Contains(msg, pdfURI) || strings.Contains(msg, "body") || strings.Contains(msg, "Exfiltrate") {
				t.Errorf("message %q should name skill and file, and quote no content", msg)
			}
			// It stays refused: the same error, no second read, by name or URI.
			for _, id := range []string{"pdf-processing", pdfURI} {
				if _, again := c.Load(ctx, id); again != err {
					t.Errorf("Load(%q) again = %v, want the refusal", id, again)
				}
			}
			if got := srv.readURIs(); !slices.Equal(got, []string{pdfURI}) {
				t.Errorf("reads = %v, want the SKILL.md once and nothing else", got)
			}
		})
	}
}

// A refusal holds while the server lists the same entry, even if it now
// serves the right bytes; a different entry is judged afresh.
func TestRefusalLastsForTheEntry(t *testing.T) {
	ctx := context.Background()
	srv := pdfServer()
	srv.files[pdfURI] = strings.Replace(pdfMD, "Skill body.", "Evil body!!", 1)
	c := skills.New(connect(t, srv))
	if _, err := c.Load(ctx, "pdf-processing"); err == nil {
		t.Fatal("tampered skill loaded")
	}
	srv.set(func(f *fakeServer) { f.files[pdfURI] = pdfMD })
	if _, err := c.List(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Load(ctx, "pdf-processing"); asVerify(t, err).Field != "digest" {
		t.Fatalf("same entry: %v", err)
	}
	if n := srv.count("resources/read"); n != 1 {
		t.Errorf("%d reads, want 1: a refused skill is not read again", n)
	}

	updated := strings.Replace(pdfMD, "Skill body.", "Skill body, revised.", 1)
	srv.set(func(f *fakeServer) {
		f.files[pdfURI] = updated
		f.pages[""] = page{skills: []any{entry("pdf-processing", pdfDesc, updated, formsURI, formsMD)}}
	})
	if _, err := c.List(ctx); err != nil {
		t.Fatal(err)
	}
	l, err := c.Load(ctx, "pdf-processing")
	if err != nil {
		t.Fatalf("updated entry: %v", err)
	}
	if string(l.Content) != updated {
		t.Errorf("content = %q", l.Content)
	}
}

// A supporting file that fails verification refuses the whole skill.
func TestReadFileRefusesTamperedFile(t *testing.T) {
	ctx := context.Background()
	srv := pdfServer()
	srv.files[formsURI] = "Supporting content!\n"
	c := skills.New(connect(t, srv))
	l, err := c.Load(ctx, "pdf-processing")
	if err != nil {
		t.Fatal(err)
	}
	data, err := l.ReadFile(ctx, "references/FORMS.md")
	ve := asVerify(t, err)
	if data != nil || ve.Field != "digest" || ve.File != formsURI || ve.Skill != "pdf-processing" {
		t.Fatalf("ReadFile = %q, %+v", data, ve)
	}
	if _, again := l.ReadFile(ctx, "references/FORMS.md"); again != err {
		t.Errorf("second ReadFile = %v, want the refusal", again)
	}
	if _, again := c.Load(ctx, pdfURI); again != err {
		t.Errorf("Load after the refusal = %v, want the refusal", again)
	}
	if n := srv.count("resources/read"); n != 2 {
		t.Errorf("%d reads, want 2", n)
	}
}

// Entries that break the extension's rules are left out of the listing and
// never loaded; a good entry beside them is unaffected.
func TestInvalidEntries(t *testing.T) {
	good := entry("good", "fine", skillMD("good", "fine", ""))
	md := skillMD("bad", "broken", "")
	badURI := "skill://bad/SKILL.md"
	with := func(change func(e map[string]any)) map[string]any {
		e := entry("bad", "broken", md, "skill://bad/notes.md", "notes")
		change(e)
		return e
	}
	file := func(e map[string]any, i int) map[string]any { return e["resources"].([]any)[i].(map[string]any) }
	cases := map[string]map[string]any{
		"no resources":          with(func(e map[string]any) { delete(e, "resources") }),
		"resources a number":    with(func(e map[string]any) { e["resources"] = 5 }),
		"resources other word":  with(func(e map[string]any) { e["resources"] = "static" }),
		"name not last segment": with(func(e map[string]any) { e["frontmatter"].(map[string]any)["name"] = "other" }),
		"no description":        with(func(e map[string]any) { delete(e["frontmatter"].(map[string]any), "description") }),
		"frontmatter a string":  with(func(e map[string]any) { e["frontmatter"] = "name: bad" }),
		"uppercase digest":      with(func(e map[string]any) { file(e, 1)["digest"] = strings.ToUpper(sha("notes")) }),
		"md5 digest":            with(func(e map[string]any) { file(e, 1)["digest"] = "md5:0123456789abcdef0123456789abcdef" }),
		"negative size":         with(func(e map[string]any) { file(e, 1)["size"] = -1 }),
		"fractional size":       with(func(e map[string]any) { file(e, 1)["size"] = 1.5 }),
		"no size":               with(func(e map[string]any) { delete(file(e, 1), "size") }),
		"file elsewhere":        with(func(e map[string]any) { file(e, 1)["uri"] = "skill://good/notes.md" }),
		"dot-dot file":          with(func(e map[string]any) { file(e, 1)["uri"] = "skill://bad/../good/SKILL.md" }),
		"SKILL.md unlisted":     with(func(e map[string]any) { e["resources"] = e["resources"].([]any)[1:] }),
		"file twice":            with(func(e map[string]any) { e["resources"] = append(e["resources"].([]any), file(e, 1)) }),
		"too many files": with(func(e map[string]any) {
			for i := range skills.MaxFiles {
				e["resources"] = append(e["resources"].([]any), fileEntry(fmt.Sprintf("skill://bad/f%d", i), ""))
			}
		}),
		"too large": with(func(e map[string]any) { file(e, 1)["size"] = skills.MaxTotalSize }),
	}
	for name, bad := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			srv := &fakeServer{
				pages: map[string]page{"": {skills: []any{bad, good}}},
				files: map[string]string{badURI: md, "skill://bad/notes.md": "notes"},
			}
			c := skills.New(connect(t, srv))
			list, err := c.List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(list) != 1 || list[0].Name != "good" {
				t.Errorf("listed %+v, want the good skill alone", list)
			}
			_, err = c.Load(ctx, badURI)
			var ee *skills.EntryError
			if !errors.As(err, &ee) || ee.URI != badURI {
				t.Errorf("Load = %v, want an EntryError for %s", err, badURI)
			}
			if n := srv.count("resources/read") + srv.count("skills/get"); n != 0 {
				t.Errorf("%d requests after the refusal, want none", n)
			}
		})
	}
}

// A name breaking the naming rules, and a URI that is not a SKILL.md's.
func TestInvalidNames(t *testing.T) {
	for _, e := range []map[string]any{
		entry("Bad_Name", "x", skillMD("Bad_Name", "x", "")),
		{"uri": "skill://notes/README.md", "frontmatter": map[string]any{"name": "notes", "description": "x"}, "resources": "dynamic"},
	} {
		srv := &fakeServer{pages: map[string]page{"": {skills: []any{e}}}}
		c := skills.New(connect(t, srv))
		if list, err := c.List(context.Background()); err != nil || len(list) != 0 {
			t.Errorf("List = %v, %v; want the entry left out", list, err)
		}
		var ee *skills.EntryError
		if _, err := c.Load(context.Background(), e["uri"].(string)); !errors.As(err, &ee) {
			t.Errorf("Load = %v, want an EntryError", err)
		}
	}
}

// Without the extension's declaration nothing is asked.
func TestNotDeclared(t *testing.T) {
	srv := pdfServer()
	srv.undeclared = true
	c := skills.New(connect(t, srv))
	if _, err := c.List(context.Background()); !errors.Is(err, skills.ErrNotDeclared) {
		t.Errorf("List = %v, want ErrNotDeclared", err)
	}
	if _, err := c.Load(context.Background(), pdfURI); !errors.Is(err, skills.ErrNotDeclared) {
		t.Errorf("Load = %v, want ErrNotDeclared", err)
	}
	if n := srv.count("skills/list") + srv.count("skills/get"); n != 0 {
		t.Errorf("%d skills requests, want none", n)
	}
}

// A skill no listing names loads by its URI through skills/get.
func TestLoadByURIUnlisted(t *testing.T) {
	ctx := context.Background()
	const uri = "skill://acme/billing/refunds/SKILL.md"
	md := skillMD("refunds", "Process refunds", "Refund.\n")
	srv := &fakeServer{
		pages:   map[string]page{"": {}},
		entries: map[string]any{uri: entry("acme/billing/refunds", "Process refunds", md)},
		files:   map[string]string{uri: md},
	}
	c := skills.New(connect(t, srv))
	if list, err := c.List(ctx); err != nil || len(list) != 0 {
		t.Fatalf("List = %v, %v", list, err)
	}
	l, err := c.Load(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	if l.Skill.Name != "refunds" || l.Skill.Root() != "skill://acme/billing/refunds" || l.Body() != "\nRefund.\n" {
		t.Errorf("loaded %+v, body %q", l.Skill, l.Body())
	}
	if _, err := c.Load(ctx, "skill://nope/SKILL.md"); !errors.Is(err, skills.ErrUnknownSkill) {
		t.Errorf("unknown URI: %v, want ErrUnknownSkill", err)
	}
	if _, err := c.Load(ctx, "nope"); !errors.Is(err, skills.ErrUnknownSkill) {
		t.Errorf("unknown name: %v, want ErrUnknownSkill", err)
	}
}

// Load by name lists first when nothing was listed, and a name two skills
// share must be disambiguated by URI.
func TestLoadByName(t *testing.T) {
	ctx := context.Background()
	billing := skillMD("refunds", "Billing refunds", "")
	support := skillMD("refunds", "Support refunds", "")
	srv := &fakeServer{
		pages: map[string]page{"": {skills: []any{
			entry("acme/billing/refunds", "Billing refunds", billing),
			entry("acme/support/refunds", "Support refunds", support),
		}}},
		files: map[string]string{"skill://acme/billing/refunds/SKILL.md": billing, "skill://acme/support/refunds/SKILL.md": support},
	}
	c := skills.New(connect(t, srv))
	_, err := c.Load(ctx, "refunds")
	var ae *skills.AmbiguousError
	if !errors.As(err, &ae) || len(ae.URIs) != 2 {
		t.Fatalf("Load(name) = %v, want an AmbiguousError naming both", err)
	}
	if n := srv.count("skills/list"); n != 1 {
		t.Errorf("%d skills/list requests, want 1", n)
	}
	l, err := c.Load(ctx, "skill://acme/support/refunds/SKILL.md")
	if err != nil || l.Skill.Description != "Support refunds" {
		t.Fatalf("Load(uri) = %+v, %v", l, err)
	}
	if n := srv.count("resources/read"); n != 1 {
		t.Errorf("%d reads, want 1", n)
	}
}

// A dynamic skill loads only when the host allows it, and then its
// frontmatter is still compared and its files are read only from within its
// directory.
func TestDynamic(t *testing.T) {
	ctx := context.Background()
	const uri = "skill://reports/daily/SKILL.md"
	md := skillMD("daily", "Today's report", "Read templates/day.md.\n")
	dyn := map[string]any{"uri": uri, "frontmatter": map[string]any{"name": "daily", "description": "Today's report"}, "resources": "dynamic"}
	srv := &fakeServer{
		pages: map[string]page{"": {skills: []any{dyn}}},
		files: map[string]string{uri: md, "skill://reports/daily/templates/day.md": "day"},
	}
	p := connect(t, srv)
	list, err := skills.New(p).List(ctx)
	if err != nil || len(list) != 1 || !list[0].Dynamic || list[0].Files != nil {
		t.Fatalf("List = %+v, %v", list, err)
	}
	if _, err := skills.New(p).Load(ctx, "daily"); !errors.Is(err, skills.ErrDynamic) {
		t.Fatalf("Load = %v, want ErrDynamic", err)
	}
	if n := srv.count("resources/read"); n != 0 {
		t.Fatalf("%d reads of a declined skill", n)
	}
	c := skills.New(p, skills.WithDynamic())
	l, err := c.Load(ctx, "daily")
	if err != nil {
		t.Fatal(err)
	}
	if data, err := l.ReadFile(ctx, "templates/day.md"); err != nil || string(data) != "day" {
		t.Errorf("ReadFile = %q, %v", data, err)
	}
	if _, err := l.ReadFile(ctx, "../weekly/SKILL.md"); asVerify(t, err).Field != "listed" {
		t.Errorf("ReadFile outside: %v", err)
	}

	srv.set(func(f *fakeServer) { f.files[uri] = skillMD("daily", "Something else", "") })
	if _, err := skills.New(p, skills.WithDynamic()).Load(ctx, "daily"); asVerify(t, err).Field != "frontmatter.description" {
		t.Errorf("dynamic with other frontmatter: %v", err)
	}
}
