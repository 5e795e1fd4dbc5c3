package main_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/mcpbridge/mcpbridge/internal/testing/browsertest"
)

// Stop on the page is Ctrl-C's equivalent: it cancels the turn, its tool
// call cancelled on the wire (the server is sent notifications/cancelled),
// and the page is ready for the next turn.
func TestBrowserWebStop(t *testing.T) {
	slow := `{"id":"c1","type":"function","function":{"name":"slow_count","arguments":"{\"to\":50,\"delay_ms\":10000}"}}`
	model, _ := fakeOpenAI(t, slow)
	server, calls, cancels := watchedDemo(t)
	base, secret := startWeb(t, append(ownCache(t), "OPENAI_BASE_URL="+model, "OPENAI_API_KEY=test", "ANTHROPIC_API_KEY="), "--model", "m", "--url", server)
	tab := browsertest.Tab(t)
	browsertest.Do(t, tab, chromedp.Navigate(base+"/#"+secret))
	browsertest.Wait[bool](t, tab, `document.getElementById("status").textContent.startsWith("model: m")`)
	say(t, tab, "count slowly")
	if call := received(t, calls, "tools/call"); !strings.Contains(call, "slow_count") {
		t.Fatalf("the call sent: %s", call)
	}
	browsertest.Click(t, tab, "#stop")
	if body := received(t, cancels, "notifications/cancelled"); !strings.Contains(body, "requestId") {
		t.Errorf("the cancellation sent: %s", body)
	}
	if got := browsertest.Wait[string](t, tab, `document.querySelector(".call details summary")?.textContent`); got != "failed: cancelled" {
		t.Errorf("the call shows %q", got)
	}
	browsertest.Wait[bool](t, tab, `document.querySelector(".msg.error")?.textContent === "stopped: the turn and its tool calls were cancelled"`)
	browsertest.Wait[bool](t, tab, `!document.getElementById("send").hidden && document.getElementById("stop").hidden`)
}
