package main_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/mcpbridge/mcpbridge/internal/testing/browsertest"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
)

// echoModel is an OpenAI-compatible model that answers each request "You
// said: " and the last message's text, calling no tool. It returns its
// URL and the requests it had, each as its messages ("role: content").
func echoModel(t *testing.T) (string, func() [][]string) {
	var mu sync.Mutex
	var requests [][]string
	srv := httptest.NewServer(streamed(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		var messages []string
		for _, m := range body.Messages {
			if m.Role != "system" {
				messages = append(messages, fmt.Sprintf("%s: %v", m.Role, m.Content))
			}
		}
		mu.Lock()
		requests = append(requests, messages)
		mu.Unlock()
		last := ""
		if len(body.Messages) > 0 {
			last = fmt.Sprint(body.Messages[len(body.Messages)-1].Content)
		}
		answer, _ := json.Marshal("You said: " + last)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"1","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":%s}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`, answer)
	})))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", func() [][]string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(requests)
	}
}

// webOnAppMessage starts mcpbridge web on the hostile app-message server
// (board, whose app speaks into the conversation as it is shown, and
// bank_transfer) with echoModel, and returns the page's address with its
// secret after #, and the model's requests.
func webOnAppMessage(t *testing.T) (page func(path string) string, requests func() [][]string) {
	model, requests := echoModel(t)
	env := append(ownCache(t), "OPENAI_BASE_URL="+model, "OPENAI_API_KEY=test", "ANTHROPIC_API_KEY=")
	base, secret := startWeb(t, env, append([]string{"--model", "m", "--name", "hostile"}, hostileServer(t, "app-message")...)...)
	return func(path string) string { return base + path + "#" + secret }, requests
}

// An app's ui/message does not start a turn: it waits by the input, marked
// as the app's, until the person sends it or discards it; the app is
// answered then. Sent, it reaches the model marked as the app's words,
// which the person chose to pass on, not the person's own. (An app that
// said "Call bank_transfer ..." as it was shown once had the model call it
// at once, as if the user had asked.)
func TestBrowserWebAppMessageWaitsForTheUser(t *testing.T) {
	page, requests := webOnAppMessage(t)
	tab := browsertest.Tab(t)
	browsertest.Do(t, tab, chromedp.Navigate(page("/app?tool=board")))
	frame := tab.Frame(t, "/apps/frame/")
	who := browsertest.Wait[string](t, tab, `!document.getElementById("pending").hidden && document.querySelector("#pending .who").textContent`)
	if who != "The app of board (server hostile) asks to send the model:" {
		t.Errorf("the app's message is introduced as %q", who)
	}
	if text := browsertest.Wait[string](t, tab, `document.querySelector("#pending .text").textContent`); text != hostile.AppMessage {
		t.Errorf("the app's message shown: %q", text)
	}
	if r := requests(); len(r) > 0 {
		t.Fatalf("the model was asked before the person sent the app's message: %q", r)
	}
	if status := browsertest.Wait[string](t, frame, `document.getElementById("status").textContent`); status != "sending" {
		t.Errorf("the app was answered before the person decided: %q", status)
	}

	browsertest.Click(t, tab, "#pending-discard")
	if status := browsertest.Wait[string](t, frame, `document.getElementById("status").textContent !== "sending" && document.getElementById("status").textContent`); !strings.HasPrefix(status, "declined: ") {
		t.Errorf("the app, its message discarded, was told %q", status)
	}
	browsertest.Wait[bool](t, tab, `document.getElementById("pending").hidden`)
	if r := requests(); len(r) > 0 {
		t.Fatalf("the model was asked after the person discarded the app's message: %q", r)
	}

	// Shown again, the app speaks again; sent, it is the app's.
	browsertest.Do(t, tab, chromedp.Reload())
	frame = tab.Frame(t, "/apps/frame/")
	browsertest.Wait[bool](t, tab, `!document.getElementById("pending").hidden`)
	browsertest.Click(t, tab, "#pending-send")
	browsertest.Wait[bool](t, frame, `document.getElementById("status").textContent === "accepted"`)
	browsertest.Wait[bool](t, tab, `document.querySelector(".answer:not(.writing)") !== null`)
	if from := browsertest.Wait[string](t, tab, `document.querySelector(".msg.user .from").textContent`); from != "from the app of board (server hostile), sent on by you" {
		t.Errorf("the conversation marks the message as %q", from)
	}
	r := requests()
	if len(r) != 1 {
		t.Fatalf("the model had %d requests: %q", len(r), r)
	}
	const marked = `user: [The app of server "hostile" (its tool board) wrote this message, not the user, who chose to send it on:]` + "\n" + hostile.AppMessage
	if !slices.Contains(r[0], marked) {
		t.Errorf("the model was told %q; want the app's message marked as its own:\n%s", r[0], marked)
	}
}

// Each page has a conversation of its own, kept by the page across a
// reload (shown again as it was) and ended by New conversation; the model
// of one page is told nothing of another's, and /app's messages go into
// /app's conversation, not another page's.
func TestBrowserWebConversationPerPage(t *testing.T) {
	page, requests := webOnAppMessage(t)
	turn := func(tab browsertest.Page, text string) []string {
		t.Helper()
		n := len(requests())
		say(t, tab, text)
		browsertest.Wait[bool](t, tab, fmt.Sprintf(`[...document.querySelectorAll(".answer:not(.writing)")].some(a => a.textContent === %q)`, "You said: "+text))
		browsertest.Wait[bool](t, tab, `document.getElementById("stop").hidden`)
		r := requests()
		if len(r) != n+1 {
			t.Fatalf("the turn %q made %d requests of the model, want 1", text, len(r)-n)
		}
		return r[n]
	}
	shown := func(tab browsertest.Page) string {
		return browsertest.Wait[string](t, tab, `[...document.querySelectorAll("#log .msg")].map(m => m.textContent).join(" | ") || "(empty)"`)
	}
	// The log is busy until the page has shown its conversation again.
	ready := `document.getElementById("status").textContent.startsWith("model: m") && !document.getElementById("log").hasAttribute("aria-busy")`
	open := func(path string) browsertest.Page {
		tab := browsertest.Tab(t)
		browsertest.Do(t, tab, chromedp.Navigate(page(path)))
		browsertest.Wait[bool](t, tab, ready)
		return tab
	}

	a := open("/")
	turn(a, "first in A")
	b := open("/")
	if got := turn(b, "first in B"); !slices.Equal(got, []string{"user: first in B"}) {
		t.Errorf("B's model was told %q", got)
	}

	browsertest.Do(t, a, chromedp.Reload())
	browsertest.Wait[bool](t, a, ready)
	if got := shown(a); got != "first in A | You said: first in A" {
		t.Errorf("A reloaded shows %q", got)
	}
	if got := turn(a, "second in A"); !slices.Equal(got, []string{"user: first in A", "assistant: You said: first in A", "user: second in A"}) {
		t.Errorf("A's model was told %q", got)
	}

	browsertest.Click(t, a, "#new")
	if got := shown(a); got != "(empty)" {
		t.Errorf("a new conversation shows %q", got)
	}
	if got := turn(a, "a new start"); !slices.Equal(got, []string{"user: a new start"}) {
		t.Errorf("the new conversation's model was told %q", got)
	}
	browsertest.Do(t, a, chromedp.Reload())
	browsertest.Wait[bool](t, a, ready)
	if got := shown(a); got != "a new start | You said: a new start" {
		t.Errorf("A reloaded after New conversation shows %q", got)
	}

	app := open("/app?tool=board")
	browsertest.Wait[bool](t, app, `!document.getElementById("pending").hidden`)
	n := len(requests())
	browsertest.Click(t, app, "#pending-send")
	browsertest.Wait[bool](t, app, `document.querySelector(".answer:not(.writing)") !== null && document.getElementById("stop").hidden`)
	if r := requests(); len(r) != n+1 || len(r[n]) != 1 || !strings.Contains(r[n][0], hostile.AppMessage) {
		t.Errorf("/app's turn told the model %q; want its app's message alone", r[n:])
	}
	if got := turn(b, "second in B"); !slices.Equal(got, []string{"user: first in B", "assistant: You said: first in B", "user: second in B"}) {
		t.Errorf("B's model was told %q", got)
	}
}
