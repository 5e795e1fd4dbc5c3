package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mcpbridge/mcpbridge/internal/testing/browsertest"
)

// webWith starts mcpbridge web on server-everything, its model answering
// as samplingModel does (a call of name with args each turn, then what
// the tool said), and returns a tab on its page, ready for a turn.
func webWith(t *testing.T, answer, name, args string, flags ...string) (browsertest.Page, func() []string) {
	model, sampled := samplingModel(t, answer, name, args)
	env := append(ownCache(t), "OPENAI_BASE_URL="+model, "OPENAI_API_KEY=test", "ANTHROPIC_API_KEY=")
	base, secret := startWeb(t, env, append(append([]string{"--model", "fake-model"}, flags...), everything(t)...)...)
	tab := browsertest.Tab(t)
	browsertest.Do(t, tab, chromedp.Navigate(base+"/#"+secret))
	browsertest.Wait[bool](t, tab, `document.getElementById("status").textContent.startsWith("model: fake-model")`)
	return tab, sampled
}

// say sends text as the user's turn.
func say(t *testing.T, tab browsertest.Page, text string) {
	t.Helper()
	browsertest.Do(t, tab, chromedp.SendKeys("#text", text), chromedp.Click("#send"))
}

// A server's form during a turn is asked on the page, not the terminal:
// its fields from the requested schema with their defaults; a value that
// does not fit is refused beside its field, as the terminal says it, and
// the form stays; the answer that fits is what the server gets. Stop
// while a form is shown cancels it with the turn.
func TestBrowserWebAsksAForm(t *testing.T) {
	tab, _ := webWith(t, "", "trigger-elicitation-request", `{}`)
	say(t, tab, "sign me up")
	browsertest.Wait[bool](t, tab, `document.querySelector(".ask form") !== null`)
	if who := browsertest.Wait[string](t, tab, `document.querySelector(".ask .who").textContent`); who != "server mcp-server-everything (tool trigger-elicitation-request) asks:" {
		t.Errorf("who asks: %q", who)
	}
	defaults := browsertest.Wait[string](t, tab, `[...document.querySelectorAll(".ask .field")].map(f => f.dataset.name + "=" + (f.querySelector("input:not([type=checkbox]), select")?.value ?? [...f.querySelectorAll("input:checked")].map(i => i.value))).join(" ")`)
	for _, want := range []string{"name= ", "check= ", "firstLine=It was a dark and stormy night.", "integer=42", "number=3.14", "untitledSingleSelectEnum=Monica", "untitledMultipleSelectEnum=Guitar", "titledSingleSelectEnum=hero-1", "titledMultipleSelectEnum=fish-1", "legacyTitledEnum=pet-1"} {
		if !strings.Contains(defaults+" ", want) {
			t.Errorf("the form shows %q, lacking %q", defaults, want)
		}
	}
	// One field under another, the buttons under them all: the form is
	// laid out as a form, not as the page's own input bar.
	browsertest.Wait[bool](t, tab, `[...document.querySelectorAll(".ask .field, .ask .buttons")].every((f, i, all) => i === 0 || f.getBoundingClientRect().top >= all[i-1].getBoundingClientRect().bottom)`)
	field := func(name string) string { return `.ask .field[data-name="` + name + `"] ` }
	browsertest.Do(t, tab, chromedp.SendKeys(field("email")+"input", "nope"), chromedp.Click(".ask button.accept"))
	if got := browsertest.Wait[string](t, tab, `document.querySelector('`+field("email")+`.field-problem').textContent`); got != `"nope" is not a valid email` {
		t.Errorf("the email's problem: %q", got)
	}
	if got := browsertest.Wait[string](t, tab, `document.querySelector('`+field("name")+`.field-problem').textContent`); got != "required" {
		t.Errorf("the name's problem: %q", got)
	}
	browsertest.Do(t, tab,
		chromedp.SendKeys(field("name")+"input", "Ada Lovelace"),
		chromedp.SetValue(field("email")+"input", "ada@example.com"),
		chromedp.SetValue(field("check")+"select", "yes"),
		chromedp.Click(".ask button.accept"))
	if got := browsertest.Wait[string](t, tab, `document.querySelector(".ask.done .outcome")?.textContent`); got != "sent" {
		t.Errorf("the form's outcome: %q", got)
	}
	answer := browsertest.Wait[string](t, tab, `document.querySelector(".answer:not(.writing)")?.textContent`)
	for _, want := range []string{"Name: Ada Lovelace", "Agreed to terms: true", "Email: ada@example.com", "Favorite Integer: 42", "Favorite Number: 3.14"} {
		if !strings.Contains(answer, want) {
			t.Errorf("the server was not sent %q: %s", want, answer)
		}
	}

	// The next turn's form, stopped: the question ends with the turn.
	say(t, tab, "again")
	browsertest.Wait[bool](t, tab, `document.querySelectorAll(".ask").length === 2 && !document.getElementById("stop").hidden`)
	browsertest.Click(t, tab, "#stop")
	if got := browsertest.Wait[string](t, tab, `document.querySelectorAll(".ask.done").length === 2 && document.querySelectorAll(".ask .outcome")[1].textContent`); got != "cancelled: the turn ended" {
		t.Errorf("the stopped form's outcome: %q", got)
	}
	browsertest.Wait[bool](t, tab, `document.querySelector(".msg.error")?.textContent === "stopped: the turn and its tool calls were cancelled" && !document.getElementById("send").hidden`)
}

// A URL a server asks the person to open is shown whole with its host,
// and opened (in a new tab of the browser) only when the person says so:
// declined, nothing fetches it.
func TestBrowserWebAsksToOpenAURL(t *testing.T) {
	visited := make(chan string, 4)
	page := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { visited <- r.URL.String() }))
	t.Cleanup(page.Close)
	url := page.URL + "/connect?account=1"
	tab, _ := webWith(t, "", "trigger-url-elicitation", `{"url": "`+url+`", "message": "Connect your account."}`)
	say(t, tab, "connect")
	shown := browsertest.Wait[string](t, tab, `document.querySelector(".ask[data-kind=url]")?.innerText`)
	for _, want := range []string{"asks you to open a page:", "Connect your account.", url, "host: 127.0.0.1"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the page lacks %q:\n%s", want, shown)
		}
	}
	browsertest.Click(t, tab, ".ask button.decline")
	if answer := browsertest.Wait[string](t, tab, `document.querySelector(".answer:not(.writing)")?.textContent`); !strings.Contains(answer, "User declined to open the URL") {
		t.Errorf("declined, the server said: %s", answer)
	}
	if len(visited) != 0 {
		t.Fatalf("the page was fetched: %s", <-visited)
	}
	say(t, tab, "connect")
	browsertest.Wait[bool](t, tab, `document.querySelectorAll(".ask[data-kind=url]").length === 2`)
	browsertest.Click(t, tab, ".ask:not(.done) button.accept")
	select {
	case got := <-visited:
		if got != "/connect?account=1" {
			t.Errorf("the browser opened %s", got)
		}
	case <-time.After(browsertest.Timeout):
		t.Fatal("the page was not opened")
	}
	if answer := browsertest.Wait[string](t, tab, `document.querySelectorAll(".answer:not(.writing)").length === 2 && document.querySelectorAll(".answer:not(.writing)")[1].textContent`); !strings.Contains(answer, "User completed the URL elicitation flow") {
		t.Errorf("opened, the server said: %s", answer)
	}
}

// With --sampling, a server's request for the model is shown on the page
// for approval: approved, the model answers it (its answer shown);
// refused, the model is not asked.
func TestBrowserWebApprovesSampling(t *testing.T) {
	tab, sampled := webWith(t, "Autumn moon rising.", "trigger-sampling-request", `{"prompt":"a haiku","maxTokens":30}`, "--sampling")
	say(t, tab, "write a haiku")
	shown := browsertest.Wait[string](t, tab, `document.querySelector(".ask[data-kind=sampling]")?.innerText`)
	for _, want := range []string{"asks the model, if you approve:", "a haiku", "its system prompt: You are a helpful test server.", "up to 30 tokens"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the page lacks %q:\n%s", want, shown)
		}
	}
	if got := sampled(); len(got) != 0 {
		t.Fatalf("the model was asked before approval: %q", got)
	}
	browsertest.Click(t, tab, ".ask button.accept")
	browsertest.Wait[bool](t, tab, `document.querySelector(".note")?.textContent === "the model answered: Autumn moon rising."`)
	if answer := browsertest.Wait[string](t, tab, `document.querySelector(".answer:not(.writing)")?.textContent`); !strings.Contains(answer, "LLM sampling result") {
		t.Errorf("approved, the server said: %s", answer)
	}
	say(t, tab, "another")
	browsertest.Wait[bool](t, tab, `document.querySelectorAll(".ask[data-kind=sampling]").length === 2`)
	browsertest.Click(t, tab, ".ask:not(.done) button.decline")
	if got := browsertest.Wait[string](t, tab, `document.querySelectorAll(".answer:not(.writing)").length === 2 && document.querySelectorAll(".call")[1].textContent`); !strings.Contains(got, "the user refused it") {
		t.Errorf("refused, the call shows: %s", got)
	}
	if got := sampled(); len(got) != 2 {
		t.Errorf("the model was sampled with %q, once", got)
	}
}

// web takes chat's flags but -p (a turn on the page is typed there), and
// --http, where it serves; --code among them runs the page's chat in code
// mode.
func TestWebHasChatsFlags(t *testing.T) {
	flags := func(command string) []string {
		r := mcpbridge(t, "", "", nil, command, "--help")
		var names []string
		for _, line := range strings.Split(r.out, "\n") {
			if strings.HasPrefix(line, "  -") {
				names = append(names, strings.Fields(line)[0])
			}
		}
		return names
	}
	chat, web := flags("chat"), flags("web")
	chat = slices.DeleteFunc(chat, func(f string) bool { return f == "-p" })
	// Where the page is served, and how (as serve's flags say it).
	web = slices.DeleteFunc(web, func(f string) bool {
		return slices.Contains([]string{"--http", "--tls-cert", "--tls-key", "--allow-host"}, f)
	})
	if !slices.Equal(chat, web) || !slices.Contains(web, "--code") {
		t.Errorf("chat's flags %v, web's %v", chat, web)
	}
}

// web --code: the model is offered run_code and describe_tools in place of
// the catalog, and the page's turn shows run_code's call, each call its
// script makes with its result, and run_code's result, which sums them up.
func TestWebCode(t *testing.T) {
	script := `{"id":"c1","type":"function","function":{"name":"run_code","arguments":"{\"code\":\"return await tools.demo.list_notes()\"}"}}`
	model, seen := fakeOpenAI(t, script)
	base, secret := startWeb(t, append(ownCache(t), "OPENAI_BASE_URL="+model, "OPENAI_API_KEY=test", "ANTHROPIC_API_KEY="), "--model", "m", "--code")
	var events []string
	for _, ev := range turnEvents(t, base, secret, "list my notes") {
		if ev.Type != "text" { // the answer as it is written: TestWebStreamsTheAnswer
			events = append(events, ev.Type+" "+ev.Name+" "+ev.Text)
		}
	}
	if len(events) != 5 || events[0] != "call run_code " || events[1] != "call list_notes " || events[2] != "result  no notes yet" ||
		!strings.HasPrefix(events[3], "result  1 tool call (demo.list_notes 1).") || !strings.HasPrefix(events[4], "answer  The tool said: ") {
		t.Errorf("the turn's events: %q", events)
	}
	if _, tools, _ := seen(); !strings.HasPrefix(strings.Join(tools, ","), "run_code,describe_tools") {
		t.Errorf("the model was offered %v", tools)
	}
}

// A webEvent is one line of a turn's stream, as the page reads it.
type webEvent struct{ Type, Name, Text string }

// turnEvents runs one turn of mcpbridge web's chat through its API, as
// the page does, and returns its events after the first, which says what
// the person sent.
func turnEvents(t *testing.T, base, secret, text string) []webEvent {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"conversation": "test", "text": text})
	req, _ := http.NewRequest(http.MethodPost, base+"/api/chat", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+secret)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var events []webEvent
	for dec := json.NewDecoder(res.Body); ; {
		var ev webEvent
		if err := dec.Decode(&ev); err != nil {
			if len(events) == 0 || events[0] != (webEvent{Type: "user", Text: text}) {
				t.Fatalf("the turn's events %v do not begin with what was sent", events)
			}
			return events[1:]
		}
		events = append(events, ev)
	}
}

// The answer is streamed into the page as the model writes it, piece by
// piece, then sent whole (cleaned as a whole), which the page shows in
// the pieces' place.
func TestWebStreamsTheAnswer(t *testing.T) {
	model, _ := fakeOpenAI(t, addNoteCall)
	base, secret := startWeb(t, append(ownCache(t), "OPENAI_BASE_URL="+model, "OPENAI_API_KEY=test", "ANTHROPIC_API_KEY="), "--model", "m")
	events := turnEvents(t, base, secret, "remember milk")
	var kinds []string
	written := ""
	for _, ev := range events {
		if len(kinds) == 0 || kinds[len(kinds)-1] != ev.Type {
			kinds = append(kinds, ev.Type)
		}
		if ev.Type == "text" {
			written += ev.Text
		}
	}
	if strings.Join(kinds, " ") != "call result text answer" || strings.Count(fmt.Sprint(events), "{text ") < 3 {
		t.Fatalf("the turn's events: %v", events)
	}
	if answer := events[len(events)-1].Text; written != answer || !strings.HasPrefix(answer, "The tool said: added note #1") {
		t.Errorf("written %q, answered %q", written, answer)
	}
}
