package gate_test

import (
	"context"
	"encoding/json"
	"errors"
	"path"
	"strings"
	"sync"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/gate"
	"github.com/mcpbridge/mcpbridge/tool"
)

var (
	readOnly    = &tool.Annotations{ReadOnlyHint: true}
	destructive = &tool.Annotations{}
)

// hostNames is what a host serving two servers, kb and fs, namespaced, knows.
// Every tool is known by its own name, its namespaced name and its alias.
func hostNames() gate.Resolver {
	tools := []gate.Names{
		{Tool: "search", Server: "kb", Namespaced: "kb_search", Annotations: readOnly},
		{Tool: "delete_file", Server: "fs", Namespaced: "fs_delete_file", Annotations: destructive},
		{Tool: "read_file", Server: "fs", Namespaced: "fs_read_file", Annotations: readOnly},
		{Tool: "write_file", Server: "fs", Namespaced: "fs_write_file"},
	}
	byName := map[string]gate.Names{}
	for _, n := range tools {
		byName[n.Tool] = n
		byName[n.Namespaced] = n
		byName["mcp__"+n.Server+"__"+n.Tool] = n
	}
	return func(name string) (gate.Names, bool) {
		n, ok := byName[name]
		return n, ok
	}
}

func mustNew(t *testing.T, c gate.Config) *gate.Policy {
	t.Helper()
	p, err := gate.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// refusal returns the refusal message of a check, or "" if it passed, failing
// the test on any other error.
func refusal(t *testing.T, p *gate.Policy, name string) string {
	t.Helper()
	err := p.Check(context.Background(), name, nil)
	if err == nil {
		return ""
	}
	var r *tool.RefusedError
	if !errors.As(err, &r) {
		t.Fatalf("%s: %v is not a refusal", name, err)
	}
	if r.Name != name {
		t.Errorf("%s: refusal names %q, want the called name", name, r.Name)
	}
	return r.Message
}

// Proves that bad patterns fail New with an error naming the pattern and its
// list, so that a typo never silently matches nothing.
func TestNewRejectsBadPatterns(t *testing.T) {
	for _, tc := range []struct {
		c       gate.Config
		want    string
		syntax  bool
		comment string
	}{
		{gate.Config{Deny: []string{"ok_*", "[delete"}}, `deny pattern "[delete"`, true, "unclosed class"},
		{gate.Config{Allow: []string{`read\`}}, `allow pattern "read\\"`, true, "trailing escape"},
		{gate.Config{Allow: []string{"*["}}, `allow pattern "*["`, true, "bad class after a star, which Match sees only when checked in full"},
		{gate.Config{Deny: []string{""}}, `deny pattern ""`, false, "empty pattern"},
	} {
		_, err := gate.New(tc.c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error naming %s", tc.comment, err, tc.want)
			continue
		}
		if got := errors.Is(err, path.ErrBadPattern); got != tc.syntax {
			t.Errorf("%s: errors.Is(err, path.ErrBadPattern) = %v", tc.comment, got)
		}
	}
}

// Proves the pattern rules on plain names: glob syntax, deny wins over allow,
// and no allow patterns means everything not denied is allowed.
func TestPatterns(t *testing.T) {
	for _, tc := range []struct {
		name        string
		allow, deny []string
		call        string
		allowed     bool
	}{
		{"no patterns allow all", nil, nil, "anything", true},
		{"no allow: undenied allowed", nil, []string{"delete_*"}, "read_file", true},
		{"no allow: denied refused", nil, []string{"delete_*"}, "delete_file", false},
		{"deny wins over allow star", []string{"*"}, []string{"delete_*"}, "delete_file", false},
		{"deny wins over exact allow", []string{"delete_file"}, []string{"delete_*"}, "delete_file", false},
		{"allow listed", []string{"read_*", "search"}, nil, "read_file", true},
		{"allow exact", []string{"read_*", "search"}, nil, "search", true},
		{"not in allow", []string{"read_*", "search"}, nil, "write_file", false},
		{"glob is whole-name", []string{"read"}, nil, "read_file", false},
		{"question mark", []string{"?ead_file"}, nil, "read_file", true},
		{"class", []string{"[rw]*_file"}, nil, "write_file", true},
		{"negated class", []string{"[^d]*"}, nil, "delete_file", false},
		{"escaped star is literal", []string{`star\*`}, nil, "star*", true},
		{"escaped star is not a glob", []string{`star\*`}, nil, "stars", false},
		{"star stops at slash (path.Match)", []string{"fs*"}, nil, "fs/read", false},
		{"case matters", nil, []string{"delete_*"}, "Delete_file", true},
	} {
		p := mustNew(t, gate.Config{Allow: tc.allow, Deny: tc.deny})
		if got := refusal(t, p, tc.call) == ""; got != tc.allowed {
			t.Errorf("%s: %s allowed = %v, want %v", tc.name, tc.call, got, tc.allowed)
		}
		if got := p.Allowed(tc.call); got != tc.allowed {
			t.Errorf("%s: Allowed(%s) = %v, want %v", tc.name, tc.call, got, tc.allowed)
		}
	}
}

// Proves that a call is judged under every name it goes by: a tool denied by
// one of its names cannot be reached through its own name, its namespaced
// name, or its alias (with any server part written).
func TestEveryNameDenied(t *testing.T) {
	names := []string{"delete_file", "fs_delete_file", "mcp__fs__delete_file", "mcp__kb__delete_file"}
	for _, tc := range []struct {
		deny     string
		resolver gate.Resolver
		names    []string
	}{
		// A pattern on the tool's own name holds under every name.
		{"delete_*", hostNames(), names},
		// Without a resolver, the own name and every alias still fail.
		{"delete_*", nil, []string{"delete_file", "mcp__fs__delete_file", "mcp__kb__delete_file", "mcp__a__b__delete_file"}},
		// A pattern on the namespaced name holds once the resolver knows it.
		{"fs_delete_file", hostNames(), names[:3]},
		// So does one on the alias, for the names the resolver knows.
		{"mcp__fs__delete_*", hostNames(), names[:3]},
	} {
		p := mustNew(t, gate.Config{Allow: []string{"*"}, Deny: []string{tc.deny}, Resolver: tc.resolver})
		for _, n := range tc.names {
			if refusal(t, p, n) == "" {
				t.Errorf("deny %q (resolver %v): %s was allowed", tc.deny, tc.resolver != nil, n)
			}
			if p.Allowed(n) {
				t.Errorf("deny %q: Allowed(%s) = true", tc.deny, n)
			}
		}
		// Another tool of the same server is untouched.
		if msg := refusal(t, p, "fs_read_file"); msg != "" {
			t.Errorf("deny %q: fs_read_file refused: %s", tc.deny, msg)
		}
	}
}

// Proves that an allow matches the names a tool is served by: with a
// resolver that knows a namespaced host's names, its namespaced name and
// its alias, whatever name it is called by, and never its own name alone;
// without one, the called name, since a host serves a plain name as it is
// and an alias only on the server it names.
func TestAllowedByServedNames(t *testing.T) {
	withResolver := mustNew(t, gate.Config{Allow: []string{"kb_search"}, Resolver: hostNames()})
	for _, n := range []string{"search", "kb_search", "mcp__kb__search"} {
		if msg := refusal(t, withResolver, n); msg != "" {
			t.Errorf("with resolver: %s refused: %s", n, msg)
		}
	}
	byOwnName := mustNew(t, gate.Config{Allow: []string{"search"}, Resolver: hostNames()})
	for _, n := range []string{"search", "kb_search", "mcp__kb__search"} {
		if refusal(t, byOwnName, n) == "" {
			t.Errorf("with resolver: %s allowed by a pattern on its own name alone", n)
		}
	}
	bare := mustNew(t, gate.Config{Allow: []string{"search", "mcp__kb__*"}})
	for n, want := range map[string]bool{
		"search":          true,
		"mcp__kb__search": true,  // served only by kb, which the pattern names
		"mcp__fs__search": false, // the tool part alone allows nothing
		"kb_search":       false, // without a resolver, just another name
	} {
		if got := refusal(t, bare, n) == ""; got != want {
			t.Errorf("without resolver: %s allowed = %v, want %v", n, got, want)
		}
	}
}

// Proves that an alias's server part counts for an allow only as the
// alias is served: a handler runs an alias on the server it names alone,
// so the pattern mcp__kb__* allows the aliases of kb's tools; with a
// resolver, the names it vouches for decide, so a pattern on kb's alias
// allows kb's tools by every name and nothing of fs.
func TestAliasServerPart(t *testing.T) {
	vouched := mustNew(t, gate.Config{Allow: []string{"mcp__kb__*"}, Resolver: hostNames()})
	for n, want := range map[string]bool{
		"search":               true, // the resolver says kb serves it
		"kb_search":            true, // likewise
		"mcp__kb__search":      true, // likewise
		"mcp__fs__delete_file": false,
		"fs_delete_file":       false,
		"delete_file":          false,
	} {
		if got := refusal(t, vouched, n) == ""; got != want {
			t.Errorf("with resolver: %s allowed = %v, want %v", n, got, want)
		}
	}
}

// Proves the rule for aliases that can be read several ways: any denied
// reading refuses, and no allow lets one through unresolved, since the
// handler may run it on any of the servers its readings name; a resolver
// that knows it decides.
func TestAmbiguousAlias(t *testing.T) {
	for _, tc := range []struct {
		allow, deny []string
		call        string
		allowed     bool
	}{
		{nil, []string{"c"}, "mcp__x__evil__c", false},       // reading "c" denied
		{nil, []string{"evil__c"}, "mcp__x__evil__c", false}, // reading "evil__c" denied
		{[]string{"c"}, nil, "mcp__x__evil__c", false},       // a reading allows nothing
		{[]string{"c", "evil__c"}, nil, "mcp__x__evil__c", false},
		{[]string{"*c"}, nil, "mcp__x__evil__c", false},
		{[]string{"mcp__x__*"}, nil, "mcp__x__evil__c", false}, // or server x__evil's c
		{[]string{"mcp__x__*"}, nil, "mcp__x__c", true},
		{nil, []string{"b"}, "mcp__a___b", false},             // overlapping "__": readings "_b" and "b"
		{[]string{"mcp__nothing"}, nil, "mcp__nothing", true}, // no "__" after the prefix: a plain name
	} {
		p := mustNew(t, gate.Config{Allow: tc.allow, Deny: tc.deny})
		if got := refusal(t, p, tc.call) == ""; got != tc.allowed {
			t.Errorf("allow %q deny %q: %s allowed = %v, want %v", tc.allow, tc.deny, tc.call, got, tc.allowed)
		}
	}
}

// Proves that a resolver that does not know an alias cannot make it escape a
// deny pattern on its tool part.
func TestUnknownAliasDenied(t *testing.T) {
	knowsNothing := func(string) (gate.Names, bool) { return gate.Names{}, false }
	p := mustNew(t, gate.Config{Deny: []string{"delete_*"}, Resolver: knowsNothing})
	if got, want := refusal(t, p, "mcp__made_up__delete_file"), `the tool "delete_file" is denied by policy pattern "delete_*"`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Proves the refusal messages name the rule in plain words.
func TestRefusalMessages(t *testing.T) {
	p := mustNew(t, gate.Config{Allow: []string{"read_*", "search"}, Deny: []string{"delete_*"}, Resolver: hostNames()})
	for call, want := range map[string]string{
		"delete_file":          `the tool "delete_file" is denied by policy pattern "delete_*"`,
		"mcp__fs__delete_file": `the tool "delete_file" is denied by policy pattern "delete_*"`,
		"fs_write_file":        `the tool "fs_write_file" is not allowed by policy: it matches none of the allowed patterns "read_*", "search"`,
	} {
		if got := refusal(t, p, call); got != want {
			t.Errorf("%s: got %q, want %q", call, got, want)
		}
	}
	err := p.Check(context.Background(), "delete_file", nil)
	if want := `tool "delete_file" refused: the tool "delete_file" is denied by policy pattern "delete_*"`; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err, want)
	}
}

// counting is a handler that records its calls.
type counting struct {
	mu    sync.Mutex
	calls []string
}

func (c *counting) Call(_ context.Context, name string, _ json.RawMessage) (tool.Reply, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, name)
	return tool.Text("ran " + name), nil
}

// Proves that the gate runs allowed calls on the wrapped handler, unchanged,
// and returns refusals without calling it.
func TestHandler(t *testing.T) {
	next := &counting{}
	p := mustNew(t, gate.Config{Deny: []string{"delete_*"}, Resolver: hostNames()})
	h := p.Handler(next)
	ctx := context.Background()
	for _, n := range []string{"delete_file", "fs_delete_file", "mcp__fs__delete_file", "mcp__x__delete_file"} {
		res, err := h.Call(ctx, n, nil)
		var r *tool.RefusedError
		if !errors.As(err, &r) || len(res.Parts) != 0 {
			t.Errorf("%s: %q, %v; want a refusal", n, res.Text(), err)
		}
	}
	if len(next.calls) != 0 {
		t.Fatalf("the wrapped handler ran %q on refusal", next.calls)
	}
	res, err := h.Call(ctx, "mcp__fs__read_file", json.RawMessage(`{"path": "a"}`))
	if err != nil || res.Text() != "ran mcp__fs__read_file" {
		t.Fatalf("allowed call: %q, %v", res.Text(), err)
	}
}

// Proves that Allowed filters definitions by every name a tool goes by, and
// that no name at all is not allowed.
func TestAllowed(t *testing.T) {
	p := mustNew(t, gate.Config{Deny: []string{"delete_*"}, Resolver: hostNames()})
	var offered []string
	for _, def := range []string{"kb_search", "fs_delete_file", "fs_read_file", "local_tool"} {
		if p.Allowed(def) {
			offered = append(offered, def)
		}
	}
	if got, want := strings.Join(offered, ","), "kb_search,fs_read_file,local_tool"; got != want {
		t.Errorf("offered %s, want %s", got, want)
	}
	// Names given together are one tool's: one denied name denies it.
	bare := mustNew(t, gate.Config{Deny: []string{"delete_*"}})
	if bare.Allowed("fs_delete_file", "delete_file") {
		t.Error(`Allowed("fs_delete_file", "delete_file") with no resolver: want false`)
	}
	if p.Allowed() || p.Allowed("") {
		t.Error("Allowed with no name: want false")
	}
}

// Proves that New copies its patterns, so a Config changed later does not
// change a policy in use.
func TestConfigCopied(t *testing.T) {
	c := gate.Config{Deny: []string{"delete_*"}}
	p := mustNew(t, c)
	c.Deny[0] = "nothing"
	if p.Allowed("delete_file") {
		t.Fatal("changing the Config after New changed the policy")
	}
}

// Proves that one policy serves concurrent calls (run with -race).
func TestConcurrent(t *testing.T) {
	var mu sync.Mutex
	asked := 0
	p := mustNew(t, gate.Config{
		Deny:     []string{"delete_*"},
		Resolver: hostNames(),
		Approver: func(context.Context, gate.Call) (bool, string, error) {
			mu.Lock()
			asked++
			mu.Unlock()
			return true, "", nil
		},
	})
	h := p.Handler(&counting{})
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			name := []string{"kb_search", "mcp__fs__delete_file"}[i%2]
			_, err := h.Call(context.Background(), name, nil)
			if (err == nil) != (name == "kb_search") {
				t.Errorf("%s: %v", name, err)
			}
		})
	}
	wg.Wait()
	if asked != 25 {
		t.Errorf("approver asked %d times, want 25", asked)
	}
}

// Proves that For teaches the policy every name of the tools a host offers,
// from their origins alone: a pattern on the own name holds for the
// namespaced name and the alias, a pattern on the alias holds for the
// namespaced name, and a local tool keeps its one name.
func TestFor(t *testing.T) {
	defs := []tool.Definition{
		{Name: "fs_delete_file", Origin: tool.Origin{Server: "fs", Tool: "delete_file"}},
		{Name: "fs_read_file", Origin: tool.Origin{Server: "fs", Tool: "read_file"}, Annotations: readOnly},
		{Name: "clock"},
	}
	ctx := context.Background()
	for _, tc := range []struct {
		deny    string
		refused []string
		allowed []string
	}{
		{"delete_*", []string{"fs_delete_file", "mcp__fs__delete_file"}, []string{"fs_read_file", "clock"}},
		{"mcp__fs__read_*", []string{"fs_read_file", "mcp__fs__read_file"}, []string{"fs_delete_file", "clock"}},
		{"clock", []string{"clock"}, []string{"fs_read_file"}},
	} {
		p := mustNew(t, gate.Config{Deny: []string{tc.deny}}).For(defs)
		for _, name := range tc.refused {
			if p.Allowed(name) || p.Check(ctx, name, nil) == nil {
				t.Errorf("deny %q: %q is allowed", tc.deny, name)
			}
		}
		for _, name := range tc.allowed {
			if !p.Allowed(name) || p.Check(ctx, name, nil) != nil {
				t.Errorf("deny %q: %q is refused", tc.deny, name)
			}
		}
	}
	// The approver sees the annotations the definitions carry.
	var seen gate.Call
	p := mustNew(t, gate.Config{Approver: func(_ context.Context, c gate.Call) (bool, string, error) {
		seen = c
		return true, "", nil
	}}).For(defs)
	if err := p.Check(ctx, "mcp__fs__read_file", nil); err != nil || seen.Annotations != readOnly || seen.Namespaced != "fs_read_file" {
		t.Fatalf("approver saw %+v, %v", seen, err)
	}
}

// Proves that a deny pattern holds under a vendor's rewrite of a tool's own
// name: server fs's delete.dir, offered as fs_delete_dir (a dot is no
// character of a vendor's names), is refused by delete_* under every name
// it is offered or called by, as its alias's reading delete_dir already
// was.
func TestDenyHoldsUnderARewrittenOwnName(t *testing.T) {
	defs := []tool.Definition{
		{Name: "fs_delete_dir", Origin: tool.Origin{Server: "fs", Tool: "delete.dir"}},
		{Name: "fs_read_dir", Origin: tool.Origin{Server: "fs", Tool: "read.dir"}},
		{Name: "g_xp_9", Origin: tool.Origin{Server: "g", Tool: "xp:9"}}, // Gemini keeps ':', the others do not
	}
	ctx := context.Background()
	for _, deny := range []string{"delete_*", "*_dir"} {
		p := mustNew(t, gate.Config{Deny: []string{deny}}).For(defs)
		for _, name := range []string{"fs_delete_dir", "mcp__fs__delete.dir", "mcp__fs__delete_dir"} {
			if p.Allowed(name) || p.Check(ctx, name, nil) == nil {
				t.Errorf("deny %q: %q allowed", deny, name)
			}
		}
	}
	p := mustNew(t, gate.Config{Deny: []string{"delete_*"}}).For(defs)
	if !p.Allowed("fs_read_dir") || p.Check(ctx, "fs_read_dir", nil) != nil {
		t.Error("fs_read_dir refused by delete_*")
	}
	if p := mustNew(t, gate.Config{Deny: []string{"xp_9"}}).For(defs); p.Allowed("g_xp_9") {
		t.Error("g_xp_9 allowed by a deny of its own name as OpenAI rewrites it")
	}
}

// Proves that an allow pattern is judged against the names a tool is
// served by (its final name, which includes its server when the host
// namespaces, and its alias), never against its own name alone: an allow
// of github_* lets through server github's tools, not server notes's
// tool github_push, served as notes_github_push, under any of its names.
func TestAllowDoesNotReachAcrossServers(t *testing.T) {
	defs := []tool.Definition{
		{Name: "github_push", Origin: tool.Origin{Server: "github", Tool: "push"}},
		{Name: "notes_github_push", Origin: tool.Origin{Server: "notes", Tool: "github_push"}},
		{Name: "clock"},
	}
	ctx := context.Background()
	p := mustNew(t, gate.Config{Allow: []string{"github_*", "clock"}}).For(defs)
	for name, want := range map[string]bool{
		"github_push":             true,
		"mcp__github__push":       true, // github_push's alias
		"clock":                   true,
		"notes_github_push":       false,
		"mcp__notes__github_push": false,
		"mcp__other__github_push": false, // an alias no tool is served by
	} {
		if got := p.Allowed(name); got != want {
			t.Errorf("Allowed(%q) = %v, want %v", name, got, want)
		}
		if got := p.Check(ctx, name, nil) == nil; got != want {
			t.Errorf("Check(%q) allowed = %v, want %v", name, got, want)
		}
	}
	// A pattern naming the server reaches its tools by every name.
	notes := mustNew(t, gate.Config{Allow: []string{"notes_*"}}).For(defs)
	for _, name := range []string{"notes_github_push", "mcp__notes__github_push"} {
		if !notes.Allowed(name) {
			t.Errorf("allow notes_*: %q refused", name)
		}
	}
	if notes.Allowed("github_push") {
		t.Error("allow notes_*: github_push allowed")
	}
}
