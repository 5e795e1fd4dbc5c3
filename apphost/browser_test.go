package apphost_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/mcpbridge/mcpbridge/apphost"
	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/testing/browsertest"
)

// open opens the page of the app of tool on server in a new tab, and
// returns the tab and the app's frame.
func open(t *testing.T, base, server, tool, args string) (tab, frame browsertest.Page) {
	t.Helper()
	tab = browsertest.Tab(t)
	openIn(t, tab, base, server, tool, args)
	return tab, tab.Frame(t, "/apps/frame/")
}

// openIn opens the page of the app of tool on server in tab.
func openIn(t *testing.T, tab browsertest.Page, base, server, tool, args string) {
	t.Helper()
	q := url.Values{"server": {server}, "tool": {tool}, "args": {args}}
	browsertest.Do(t, tab, chromedp.Navigate(base+"/?"+q.Encode()))
	if msg := browsertest.Wait[string](t, tab, `window.app ? "open" : window.openError`); msg != "open" {
		t.Fatalf("the page could not open the app: %s", msg)
	}
}

// The demo's notes board renders the notes its tool returned, and its
// Refresh button calls board_refresh, a tool the model is never offered,
// through the bridge: the new note reaches the board.
func TestBrowserNotesBoard(t *testing.T) {
	p := connected(t, mcpclient.FromServer("demo", demo.New(), mcpclient.WithApps()))
	ctx := context.Background()
	if _, err := p.CallToolResult(ctx, "add_note", map[string]any{"title": "milk", "body": "buy milk"}); err != nil {
		t.Fatal(err)
	}
	base, logs := serveHost(t, apphost.Config{}, map[string]*mcpclient.Provider{"demo": p})
	_, frame := open(t, base, "demo", "notes_board", "{}")
	browsertest.Wait[bool](t, frame, `document.querySelector("#board .card h3")?.textContent === "#1 milk"`)

	if _, err := p.CallToolResult(ctx, "add_note", map[string]any{"title": "eggs", "body": "a dozen"}); err != nil {
		t.Fatal(err)
	}
	browsertest.Click(t, frame, "#refresh")
	browsertest.Wait[bool](t, frame, `[...document.querySelectorAll("#board .card h3")].map(h => h.textContent).join() === "#1 milk,#2 eggs"`)
	t.Log(logs)
}
