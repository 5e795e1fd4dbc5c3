package main_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
	"github.com/mcpbridge/mcpbridge/internal/testing/npmtest"
)

// savedApp returns the content of the app a call printed it saved in dir,
// checking that the size it printed is the saved file's.
func savedApp(t *testing.T, r result, dir string) string {
	t.Helper()
	m := regexp.MustCompile(`\[app (\S+), ([0-9,]+) bytes, saved to (\S+)\]`).FindStringSubmatch(r.out)
	if m == nil || filepath.Dir(m[3]) != dir {
		t.Fatalf("no app saved in %s:\n%s%s", dir, r.out, r.err)
	}
	data, err := os.ReadFile(m[3])
	if err != nil {
		t.Fatal(err)
	}
	if size := strings.ReplaceAll(m[2], ",", ""); size != strconv.Itoa(len(data)) {
		t.Errorf("said %s bytes; saved %d", m[2], len(data))
	}
	return string(data)
}

// The demo's board: tools marks it, keeps the app's own tool out; call
// saves its interface beside the result, the policy first in it.
func TestAppsOnTheDemo(t *testing.T) {
	dir := t.TempDir()
	r := mcpbridge(t, dir, "", nil, "tools")
	expect(t, r, 0, "notes_board", "app: ui://notes/board.html (call --out DIR saves it)")
	if strings.Contains(r.out, "board_refresh") {
		t.Fatalf("the app's own tool is listed:\n%s", r.out)
	}
	r = mcpbridge(t, dir, "", nil, "call", "notes_board", "--out", dir)
	expect(t, r, 0, "no notes yet", "[app ui://notes/board.html, ")
	page := savedApp(t, r, dir)
	const head = `<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;unsafe-inline&#39;;`
	if !strings.HasPrefix(page, head) || !strings.Contains(page, "ui/notifications/tool-result") {
		t.Fatalf("saved page:\n%.300s", page)
	}
	var out struct {
		Parts             []map[string]any
		StructuredContent map[string]any
		IsError           bool
		App               struct{ URI, Path string }
	}
	r = mcpbridge(t, dir, "", nil, "call", "notes_board", "--json", "--out", dir)
	expect(t, r, 0)
	decode(t, r.out, &out)
	if out.App.URI != "ui://notes/board.html" || filepath.Dir(out.App.Path) != dir || out.StructuredContent["notes"] == nil {
		t.Fatalf("call --json: %+v", out)
	}
	// A tool without an app saves none.
	if r := mcpbridge(t, dir, "", nil, "call", "list_notes"); strings.Contains(r.out, "[app") {
		t.Fatalf("list_notes: %s", r.out)
	}
}

// A server's declarations cannot widen what its saved page may do: an
// origin that smuggles in a directive and a keyword posing as an origin are
// left out of the policy, and the app's own tool is not the model's.
func TestHostileApp(t *testing.T) {
	dir := t.TempDir()
	server := hostileServer(t, "app")
	r := mcpbridge(t, dir, "", nil, append([]string{"tools"}, server...)...)
	expect(t, r, 0, "view", "app: ui://hostile/view.html")
	if strings.Contains(r.out, "admin") {
		t.Fatalf("the app's own tool is listed:\n%s", r.out)
	}
	expect(t, mcpbridge(t, dir, "", nil, append([]string{"call", "admin"}, server...)...), 2, `no tool "admin"`)
	r = mcpbridge(t, dir, "", nil, append([]string{"call", "view", "--out", dir}, server...)...)
	expect(t, r, 0, "viewed")
	page := savedApp(t, r, dir)
	policy := regexp.MustCompile(`content="([^"]*)"`).FindStringSubmatch(page)[1]
	if !strings.Contains(policy, "connect-src https://api.example.com;") || strings.Contains(policy, "*") || strings.Contains(policy, "eval") {
		t.Fatalf("policy %s", policy)
	}
	if !strings.HasSuffix(page, hostile.AppHTML[len("<!DOCTYPE html>"):]) {
		t.Fatalf("the page is not the server's:\n%s", page)
	}
}

// The extension's own example server, through the built command.
func TestBasicAppServerCommand(t *testing.T) {
	app := npmtest.Bin(t, "mcp-server-basic-vanillajs")
	dir := t.TempDir()
	expect(t, mcpbridge(t, dir, "", nil, "tools", "--", app, "--stdio"), 0, "get-time", "app: ui://get-time/mcp-app.html")
	r := mcpbridge(t, dir, "", nil, "call", "get-time", "--out", dir, "--", app, "--stdio")
	expect(t, r, 0, "[app ui://get-time/mcp-app.html, ")
	if !regexp.MustCompile(`^\d{4}-\d\d-\d\dT`).MatchString(r.out) {
		t.Fatalf("get-time: %s", r.out)
	}
	if page := savedApp(t, r, dir); !strings.Contains(page, `http-equiv="Content-Security-Policy"`) || len(page) < 10000 {
		t.Fatalf("saved page: %d bytes", len(page))
	}
}

// server-everything's links name their server, and the linked resource
// reads; an embedded blob of text is text.
func TestResourceLinksCommand(t *testing.T) {
	everything := npmtest.Bin(t, "mcp-server-everything")
	dir := t.TempDir()
	r := mcpbridge(t, dir, "", nil, "call", "get-resource-links", `{"count":2}`, "--name", "everything", "--", everything, "stdio")
	expect(t, r, 0, `[resource link: demo://resource/dynamic/text/2 (text/plain) \"Text Resource 2\", server \"everything\"]`)
	r = mcpbridge(t, dir, "", nil, "call", "get-resource-reference", `{"resourceType":"Blob","resourceId":3}`, "--", everything, "stdio")
	expect(t, r, 0, "Resource 3: This is a base64 blob")
	expect(t, mcpbridge(t, dir, "", nil, "read", "demo://resource/dynamic/text/2", "--", everything, "stdio"), 0, "Resource 2: This is a plaintext resource")
}

// Without --out, call saves no app: it says the tool has one and how to
// save it, and the temporary directory is left as it was.
func TestAppSavedOnlyWithOut(t *testing.T) {
	dir, tmp := t.TempDir(), t.TempDir()
	env := []string{"TMPDIR=" + tmp}
	r := mcpbridge(t, dir, "", env, "call", "notes_board")
	expect(t, r, 0, "no notes yet", "[app ui://notes/board.html: not saved; --out DIR saves it]\n")
	var out struct {
		Parts             []map[string]any
		StructuredContent map[string]any
		IsError           bool
		App               map[string]any
	}
	r = mcpbridge(t, dir, "", env, "call", "notes_board", "--json")
	expect(t, r, 0)
	decode(t, r.out, &out)
	if out.App["uri"] != "ui://notes/board.html" || out.App["path"] != nil {
		t.Errorf("call --json without --out: app %v", out.App)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("call left %d files in the temporary directory: %v", len(left), left)
	}
	expect(t, mcpbridge(t, dir, "", env, "tools"), 0, "app: ui://notes/board.html (call --out DIR saves it)")
}
