package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/mcpbridge/mcpbridge/internal/form"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/tool"
)

// events is a turn's stream as the page reads it: one event a write.
type events chan webEvent

func (c events) Write(p []byte) (int, error) {
	var ev webEvent
	if err := json.Unmarshal(p, &ev); err != nil {
		panic(err)
	}
	c <- ev
	return len(p), nil
}

// pageTurn returns a page with a turn running, its events, and what it
// says on stderr.
func pageTurn(t *testing.T) (*webChat, *webTurn, events, *bytes.Buffer) {
	var stderr bytes.Buffer
	w := &webChat{secret: "s3cret", errw: &stderr}
	ev := make(events, 64)
	turn := newTurn(context.Background(), nil, ev, func() {})
	w.begin(turn)
	t.Cleanup(func() { w.end(turn) })
	return w, turn, ev, &stderr
}

// post posts body to path of w's handler, with the run's secret.
func post(w *webChat, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+w.secret)
	rec := httptest.NewRecorder()
	w.handler([]string{"example.com"}).ServeHTTP(rec, req) // httptest.NewRequest's Host
	return rec
}

func next(t *testing.T, ev events, typ string) webEvent {
	t.Helper()
	select {
	case e := <-ev:
		if e.Type != typ {
			t.Fatalf("event %+v, want one of type %s", e, typ)
		}
		return e
	default:
		t.Fatalf("no event, want one of type %s", typ)
		return webEvent{}
	}
}

type elicited struct {
	a   tool.Answer
	err error
}

// ask asks e on w in the background; the answer comes on the channel.
func ask(ctx context.Context, w *webChat, e *tool.Elicitation) <-chan elicited {
	c := make(chan elicited, 1)
	go func() {
		a, err := w.elicit(ctx, e)
		c <- elicited{a, err}
	}()
	return c
}

var testForm = `{"type":"object","properties":{
	"name":{"type":"string","description":"Your name\u001b[2J","default":"Ada\u202e"},
	"email":{"type":"string","format":"email"},
	"age":{"type":"integer","minimum":1,"maximum":100,"default":42},
	"agree":{"type":"boolean"},
	"color":{"type":"string","enum":["red","green"],"enumNames":["Red","Green"]},
	"fish":{"type":"array","items":{"type":"string","enum":["tuna","salmon"]}}},
	"required":["name","agree"]}`

// A form is shown on the page with its fields, its texts cleaned; an
// answer that does not fit is refused with what is wrong with each field
// (as the terminal says it of a typed value) and the question stays open;
// one that fits is what the server is sent, typed as the form says.
func TestPageAsksAForm(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, _, ev, _ := pageTurn(t)
		asked := json.RawMessage(testForm)
		got := ask(context.Background(), w, &tool.Elicitation{Server: "srv", Tool: "signup", Message: "Who are you?" + hostile.Escapes, Schema: asked})
		synctest.Wait()
		q := next(t, ev, "ask").Question
		if q.ID != "q1" || q.Kind != "form" || q.Server != "srv" || q.Tool != "signup" || q.Message != "Who are you?" || len(q.Fields) != 6 {
			t.Fatalf("the question: %+v", q)
		}
		if f := q.Fields[0]; f.Title != "name" || f.Description != "Your name" || f.Default != "Ada" {
			t.Errorf("the name field, its texts cleaned: %+v", f)
		}
		if f := q.Fields[2]; f.Name != "age" || f.Kind != form.IntegerField || f.Default != float64(42) || *f.Min != 1 || *f.Max != 100 {
			t.Errorf("the age field: %+v", f)
		}
		if f := q.Fields[4]; f.Kind != form.SelectField || !reflect.DeepEqual(f.Choices, []choice{{"red", "Red"}, {"green", "Green"}}) {
			t.Errorf("the color field: %+v", f)
		}

		rec := post(w, "/api/answer", `{"id":"q1","action":"accept","content":{"name":" ","email":"nope","age":"200","agree":"maybe","color":"purple","fish":["cod"],"extra":"x"}}`)
		var refused struct {
			Error  string
			Fields map[string]string
		}
		json.Unmarshal(rec.Body.Bytes(), &refused)
		want := map[string]string{
			"name":  "required",
			"email": `"nope" is not a valid email`,
			"age":   "200 is out of range (want 1 to 100)",
			"agree": `"maybe": answer yes or no`,
			"color": `"purple" is not one of the options`,
			"fish":  `"cod" is not one of the options`,
			"":      `field "extra" is not in the form`,
		}
		if rec.Code != http.StatusUnprocessableEntity || refused.Error != "the answer does not fit the form" || !reflect.DeepEqual(refused.Fields, want) {
			t.Fatalf("a wrong answer: %d %s", rec.Code, rec.Body)
		}
		synctest.Wait()
		if len(got) != 0 || len(ev) != 0 {
			t.Fatal("a refused answer ended the question")
		}

		rec = post(w, "/api/answer", `{"id":"q1","action":"accept","content":{"name":" Ada ","email":"ada@example.com","age":"42","agree":"yes","color":"red","fish":["tuna"]}}`)
		if rec.Code != http.StatusNoContent {
			t.Fatalf("an answer that fits: %d %s", rec.Code, rec.Body)
		}
		a := <-got
		wantContent := map[string]any{"name": "Ada", "email": "ada@example.com", "age": int64(42), "agree": true, "color": "red", "fish": []any{"tuna"}}
		if a.err != nil || a.a.Action != "accept" || !reflect.DeepEqual(a.a.Content, wantContent) {
			t.Fatalf("the server is sent %+v, %v", a.a, a.err)
		}
		synctest.Wait()
		if e := next(t, ev, "asked"); e.ID != "q1" || e.Action != "accept" {
			t.Errorf("the end of the question: %+v", e)
		}
		if rec := post(w, "/api/answer", `{"id":"q1","action":"decline"}`); rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), "no longer open") {
			t.Errorf("a second answer: %d %s", rec.Code, rec.Body)
		}
	})
}

// One question at a time in a turn: a second waits until the first is
// answered, then is shown. A decline is sent as one.
func TestPageAsksOneQuestionAtATime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, _, ev, _ := pageTurn(t)
		asked := json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)
		first := ask(context.Background(), w, &tool.Elicitation{Server: "a", Message: "first", Schema: asked})
		synctest.Wait()
		second := ask(context.Background(), w, &tool.Elicitation{Server: "b", Message: "second", Schema: asked})
		synctest.Wait()
		if q := next(t, ev, "ask").Question; q.Message != "first" {
			t.Fatalf("shown first: %+v", q)
		}
		if len(ev) != 0 {
			t.Fatalf("a second question is shown beside the first: %+v", <-ev)
		}
		if rec := post(w, "/api/answer", `{"id":"q1","action":"decline"}`); rec.Code != http.StatusNoContent {
			t.Fatalf("declining: %d %s", rec.Code, rec.Body)
		}
		if a := <-first; a.a.Action != "decline" || a.a.Content != nil {
			t.Fatalf("the first answered %+v", a)
		}
		synctest.Wait()
		next(t, ev, "asked")
		if q := next(t, ev, "ask").Question; q.ID != "q2" || q.Message != "second" {
			t.Fatalf("shown second: %+v", q)
		}
		if rec := post(w, "/api/answer", `{"id":"q2","action":"cancel"}`); rec.Code != http.StatusNoContent {
			t.Fatalf("cancelling: %d %s", rec.Code, rec.Body)
		}
		if a := <-second; a.a.Action != "cancel" {
			t.Fatalf("the second answered %+v", a)
		}
	})
}

// Stop ends the turn, and with it the question shown (cancelled, the page
// told why) and one waiting to be shown; a question ends with its call
// too. Once the turn is over, Stop has nothing to stop.
func TestPageQuestionEndsWithTheTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, turn, ev, _ := pageTurn(t)
		asked := json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)
		call, endCall := context.WithCancel(context.Background())
		byCall := ask(call, w, &tool.Elicitation{Server: "a", Message: "m", Schema: asked})
		synctest.Wait()
		next(t, ev, "ask")
		endCall()
		if a := <-byCall; a.a.Action != "cancel" {
			t.Fatalf("a question whose call ended: %+v", a)
		}
		synctest.Wait()
		if e := next(t, ev, "asked"); e.Action != "cancel" || e.Text != "the call ended" {
			t.Errorf("the page is told %+v", e)
		}

		shown := ask(context.Background(), w, &tool.Elicitation{Server: "a", Message: "shown", Schema: asked})
		synctest.Wait()
		waiting := ask(context.Background(), w, &tool.Elicitation{Server: "b", Message: "waiting", URL: "https://example.com/"})
		synctest.Wait()
		next(t, ev, "ask")
		if rec := post(w, "/api/stop", `{}`); rec.Code != http.StatusNoContent {
			t.Fatalf("stop: %d %s", rec.Code, rec.Body)
		}
		for _, c := range []<-chan elicited{shown, waiting} {
			if a := <-c; a.a.Action != "cancel" {
				t.Fatalf("a question of a stopped turn: %+v", a)
			}
		}
		synctest.Wait()
		if e := next(t, ev, "asked"); e.Action != "cancel" || e.Text != "the turn ended" {
			t.Errorf("the page is told %+v", e)
		}
		if len(ev) != 0 {
			t.Errorf("the waiting question was shown: %+v", <-ev)
		}
		if turn.ctx.Err() == nil || !turn.stopped {
			t.Error("stop did not cancel the turn")
		}
		w.end(turn)
		if rec := post(w, "/api/stop", `{}`); rec.Code != http.StatusConflict {
			t.Errorf("stop with no turn: %d %s", rec.Code, rec.Body)
		}
		if rec := post(w, "/api/answer", `{"id":"q2","action":"accept"}`); rec.Code != http.StatusConflict {
			t.Errorf("an answer with no turn: %d %s", rec.Code, rec.Body)
		}
	})
}

// A URL is shown whole, cleaned of what would hide or reorder its
// characters (the address opened is the one shown), with its host and a
// warning for a host not in plain ASCII; accepting sends no content.
func TestPageAsksToOpenAURL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, _, ev, _ := pageTurn(t)
		got := ask(context.Background(), w, &tool.Elicitation{Server: "pay", Message: "Pay here.", URL: "https://xn--pypal-4ve.com/pay?\u202eamount=1"})
		synctest.Wait()
		q := next(t, ev, "ask").Question
		if q.Kind != "url" || q.URL != "https://xn--pypal-4ve.com/pay?amount=1" || q.Host != "xn--pypal-4ve.com" || !strings.Contains(q.Warning, "not plain ASCII") {
			t.Fatalf("the question: %+v", q)
		}
		if rec := post(w, "/api/answer", `{"id":"q1","action":"accept","content":{"x":1}}`); rec.Code != http.StatusNoContent {
			t.Fatalf("accepting: %d %s", rec.Code, rec.Body)
		}
		if a := <-got; a.a.Action != "accept" || a.a.Content != nil {
			t.Fatalf("the server is sent %+v", a)
		}
		ok := ask(context.Background(), w, &tool.Elicitation{Server: "s", URL: "https://example.com/"})
		synctest.Wait()
		next(t, ev, "asked")
		if q := next(t, ev, "ask").Question; q.Host != "example.com" || q.Warning != "" {
			t.Fatalf("a plain host: %+v", q)
		}
		post(w, "/api/answer", `{"id":"q2","action":"decline"}`)
		<-ok
	})
}

// A sampling request is shown for approval: the model is asked only once
// the person approves, and its answer is shown; a refusal fails the
// request.
func TestPageApprovesSampling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, _, ev, _ := pageTurn(t)
		req := &mcptool.SamplingRequest{Server: "srv", Tool: "haiku", System: "You write haiku.", Messages: []llm.Message{llm.UserText("a haiku")}, MaxTokens: 30}
		approved := make(chan error, 1)
		go func() { approved <- w.approve(context.Background(), req) }()
		synctest.Wait()
		q := next(t, ev, "ask").Question
		if q.Kind != "sampling" || q.Message != "a haiku" || q.System != "You write haiku." || q.Detail != "1 messages, 0 tools, up to 30 tokens" {
			t.Fatalf("the question: %+v", q)
		}
		post(w, "/api/answer", `{"id":"q1","action":"accept"}`)
		if err := <-approved; err != nil {
			t.Fatalf("approved: %v", err)
		}
		synctest.Wait()
		next(t, ev, "asked")
		model := w.sampling(answering("Autumn moon." + hostile.Escapes)).Model
		if _, err := model.Generate(context.Background(), llm.Request{}); err != nil {
			t.Fatal(err)
		}
		if e := next(t, ev, "note"); e.Text != "the model answered: Autumn moon." {
			t.Errorf("the answer shown: %q", e.Text)
		}
		go func() { approved <- w.approve(context.Background(), req) }()
		synctest.Wait()
		next(t, ev, "ask")
		post(w, "/api/answer", `{"id":"q2","action":"decline"}`)
		if err := <-approved; err == nil || err.Error() != "the user refused it" {
			t.Fatalf("refused: %v", err)
		}
	})
}

type answering string

func (a answering) Generate(context.Context, llm.Request) (*llm.Response, error) {
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Parts: []tool.Part{tool.TextPart{Text: string(a)}}}}, nil
}

func (answering) Vision() bool { return false }

// With no turn running (an app's own call) there is no page to ask on: a
// question is declined, said on stderr as the terminal says it, and a
// sampling request refused.
func TestPageDeclinesWithNoTurn(t *testing.T) {
	var stderr bytes.Buffer
	w := &webChat{secret: "s3cret", errw: &stderr}
	a, err := w.elicit(context.Background(), &tool.Elicitation{Server: "srv", Tool: "t", Message: "Open it.", URL: "https://example.com/x"})
	if err != nil || a.Action != "decline" {
		t.Fatalf("%+v, %v", a, err)
	}
	if want := `server "srv" (tool "t") asked you to open https://example.com/x: Open it. — declined: no turn of the page is running to ask in` + "\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if err := w.approve(context.Background(), &mcptool.SamplingRequest{Server: "srv"}); err == nil {
		t.Error("a sampling request with no turn was approved")
	}
}

// What the page is sent and what it may post are bounded: a question too
// large to show is declined (the page told why), an answer over 64 KiB is
// refused; the API takes nothing without the run's secret.
func TestPageQuestionsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, _, ev, _ := pageTurn(t)
		many := make([]string, 3000)
		for i := range many {
			many[i] = strings.Repeat("x", 90) + string(rune('a'+i%26)) + strings.Repeat("y", i%7) + string(rune('A'+i/26%26)) + string(rune('A'+i/676))
		}
		enum, _ := json.Marshal(many)
		asked := json.RawMessage(`{"type":"object","properties":{"pick":{"type":"string","enum":` + string(enum) + `}}}`)
		a, err := w.elicit(context.Background(), &tool.Elicitation{Server: "big", Message: "pick one", Schema: asked})
		if err != nil || a.Action != "decline" {
			t.Fatalf("a question too large: %+v, %v", a, err)
		}
		if e := next(t, ev, "note"); !strings.HasPrefix(e.Text, `server "big" asked a question of `) || !strings.HasSuffix(e.Text, "bytes, over 262144: declined") {
			t.Errorf("the page is told %q", e.Text)
		}
		small := json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)
		got := ask(context.Background(), w, &tool.Elicitation{Server: "s", Message: strings.Repeat("long ", 2000), Schema: small})
		synctest.Wait()
		if q := next(t, ev, "ask").Question; len(q.Message) > maxAskText+len("…") {
			t.Errorf("a message of %d bytes shown", len(q.Message))
		}
		if rec := post(w, "/api/answer", `{"id":"q2","action":"accept","content":{"x":"`+strings.Repeat("a", maxAnswer)+`"}}`); rec.Code != http.StatusBadRequest {
			t.Errorf("an answer over the bound: %d %s", rec.Code, rec.Body)
		}
		req := httptest.NewRequest(http.MethodPost, "/api/answer", strings.NewReader(`{"id":"q2","action":"decline"}`))
		rec := httptest.NewRecorder()
		w.handler([]string{"example.com"}).ServeHTTP(rec, req) // httptest.NewRequest's Host
		if rec.Code != http.StatusUnauthorized {
			t.Errorf("an answer without the secret: %d", rec.Code)
		}
		post(w, "/api/answer", `{"id":"q2","action":"decline"}`)
		<-got
	})
}
