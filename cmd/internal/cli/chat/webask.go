package chat

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode"

	"github.com/mcpbridge/mcpbridge/internal/form"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/tool"
)

// What a server asks during a turn of mcpbridge web is asked on the page,
// in the turn's stream, where the person is: a form (its fields from the
// requested schema, the answer read and checked here as the terminal reads
// a typed line), a URL to open (shown whole with its host, opened by the
// page only when the person says so), a sampling request to approve. One
// question at a time per turn; each ends with its call and its turn (Stop,
// the page closed, Ctrl-C), cancelled. A question while no turn runs (an
// app's own call) is declined, said on stderr.

// Bounds of the page's questions.
const (
	maxQuestion = 256 << 10 // a question as the page is sent it, in bytes of JSON
	maxAnswer   = 64 << 10  // an answer the page posts
	maxAskText  = 4000      // bytes of a server's message or prompt shown
	maxAskLine  = 500       // bytes of a field's title, description or choice
)

// A question is what the page is asked to show. Every text in it is the
// server's, cleaned, and the page puts it on the page as text.
type question struct {
	ID      string          `json:"id"`
	Kind    string          `json:"kind"` // form, url or sampling
	Server  string          `json:"server"`
	Tool    string          `json:"tool,omitempty"`
	Message string          `json:"message"`
	Fields  []questionField `json:"fields,omitempty"`
	// A URL to open, and its host apart, with a warning when the host is
	// not plain ASCII and may imitate another.
	URL     string `json:"url,omitempty"`
	Host    string `json:"host,omitempty"`
	Warning string `json:"warning,omitempty"`
	// A sampling request's system prompt, and what else it holds.
	System string `json:"system,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// A questionField is a form's field as the page renders it.
type questionField struct {
	Name        string         `json:"name"`
	Title       string         `json:"title"`
	Description string         `json:"description,omitempty"`
	Kind        form.FieldKind `json:"kind"`
	Format      string         `json:"format,omitempty"`
	Required    bool           `json:"required,omitempty"`
	Choices     []choice       `json:"choices,omitempty"`
	Default     any            `json:"default,omitempty"`
	Min         *float64       `json:"min,omitempty"`
	Max         *float64       `json:"max,omitempty"`
}

type choice struct {
	Value string `json:"value"`
	Title string `json:"title"`
}

// A pageAnswer is what the person answered, or how the question ended.
type pageAnswer struct {
	action  string
	content map[string]any
}

// An openQuestion is the question a turn shows, waiting for its answer.
type openQuestion struct {
	id     string
	form   *form.Form // nil but for a form
	answer chan pageAnswer
}

// ask shows q on the page and returns the answer. A question waits for the
// one shown before it; it ends, cancelled, when ctx (its call's) or the
// turn ends. One too large to show is declined, the page told why.
func (t *webTurn) ask(ctx context.Context, q question, fm *form.Form) pageAnswer {
	cancelled := pageAnswer{action: "cancel"}
	select {
	case t.slot <- struct{}{}:
	case <-ctx.Done():
		return cancelled
	case <-t.ctx.Done():
		return cancelled
	}
	defer func() { <-t.slot }()
	t.mu.Lock()
	t.nextQuestion++
	q.ID = fmt.Sprintf("q%d", t.nextQuestion)
	open := &openQuestion{id: q.ID, form: fm, answer: make(chan pageAnswer, 1)}
	t.mu.Unlock()
	if data, _ := json.Marshal(q); len(data) > maxQuestion {
		t.emit(webEvent{Type: "note", Text: fmt.Sprintf("%s asked a question of %d bytes, over %d: declined", q.who(), len(data), maxQuestion)})
		return pageAnswer{action: "decline"}
	}
	t.mu.Lock()
	t.question = open
	t.mu.Unlock()
	t.emit(webEvent{Type: "ask", Question: &q})
	var (
		a   pageAnswer
		why string
	)
	select {
	case a = <-open.answer:
	case <-ctx.Done():
		a, why = cancelled, "the call ended"
	case <-t.ctx.Done():
		a, why = cancelled, "the turn ended"
	}
	t.mu.Lock()
	if t.question == open {
		t.question = nil
	}
	t.mu.Unlock()
	t.emit(webEvent{Type: "asked", ID: q.ID, Action: string(a.action), Text: why})
	return a
}

// answerOpen hands a to the question id, if it is the one shown, and
// reports whether it was.
func (t *webTurn) answerOpen(id string, a pageAnswer) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.question == nil || t.question.id != id {
		return false
	}
	t.question.answer <- a // buffered, and sent once: the question is no longer open
	t.question = nil
	return true
}

// openForm returns the form of the question id, and whether it is the one
// shown.
func (t *webTurn) openForm(id string) (*form.Form, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.question == nil || t.question.id != id {
		return nil, false
	}
	return t.question.form, true
}

func (q *question) who() string {
	who := fmt.Sprintf("server %q", q.Server)
	if q.Tool != "" {
		who += fmt.Sprintf(" (tool %q)", q.Tool)
	}
	return who
}

// elicit is the page's [tool.Elicitor]: the question goes to the turn
// running; with none it is declined, said on stderr as the terminal says
// it.
func (w *webChat) elicit(ctx context.Context, e *tool.Elicitation) (tool.Answer, error) {
	q := question{Kind: "form", Server: untrusted.Line(e.Server), Tool: untrusted.Line(e.Tool), Message: cutText(untrusted.Text(e.Message), maxAskText)}
	t := w.current()
	if t == nil {
		what := "asked for input"
		if e.URL != "" {
			what = "asked you to open " + untrusted.Line(e.URL)
		}
		fmt.Fprintf(w.errw, "%s %s: %s — declined: no turn of the page is running to ask in\n", q.who(), what, untrusted.Line(e.Message))
		return tool.Answer{Action: "decline"}, nil
	}
	var ask *form.Form
	if e.URL != "" {
		// The URL shown is the URL opened: cleaned of what would hide or
		// reorder its characters.
		q.Kind, q.URL = "url", untrusted.Line(e.URL)
		q.Host, q.Warning = hostOf(q.URL)
	} else {
		fm, err := form.Parse(e.Schema)
		if err != nil {
			return tool.Answer{}, err
		}
		q.Fields = fieldsOf(fm)
		ask = fm
	}
	a := t.ask(ctx, q, ask)
	return tool.Answer{Action: a.action, Content: a.content}, nil
}

// hostOf returns the host of u and, when it is not plain ASCII (punycode
// or another script), a warning that it may imitate a host the person
// knows.
func hostOf(u string) (host, warning string) {
	parsed, err := url.Parse(u)
	if err != nil {
		return "", "the address does not parse: do not open it"
	}
	host = parsed.Hostname()
	if strings.Contains(host, "xn--") || strings.IndexFunc(host, func(r rune) bool { return r > unicode.MaxASCII }) >= 0 {
		warning = "the host is not plain ASCII (punycode or another script): it may imitate a host you know"
	}
	return host, warning
}

// fieldsOf is form as the page renders it, its texts cleaned and cut.
func fieldsOf(fm *form.Form) []questionField {
	fields := make([]questionField, 0, len(fm.Fields))
	for _, f := range fm.Fields {
		// The name is the answer's key, sent back as it is; the page shows
		// the title, the name when there is none.
		qf := questionField{
			Name: f.Name, Title: cutText(untrusted.Line(cmp.Or(f.Title, f.Name)), maxAskLine), Description: cutText(untrusted.Line(f.Description), maxAskLine),
			Kind: f.Kind, Format: f.Format, Required: f.Required, Default: f.Default, Min: f.Minimum, Max: f.Maximum,
		}
		if d, ok := f.Default.(string); ok && f.Kind == form.StringField {
			qf.Default = untrusted.Line(d) // shown in its input, and sent back if kept
		}
		for _, c := range f.Choices {
			qf.Choices = append(qf.Choices, choice{Value: c.Value, Title: cutText(untrusted.Line(c.Title), maxAskLine)})
		}
		fields = append(fields, qf)
	}
	return fields
}

// approve is the page's approval of a sampling request: the request shown
// in the turn running, the model asked only once the person approves.
func (w *webChat) approve(ctx context.Context, r *mcptool.SamplingRequest) error {
	t := w.current()
	if t == nil {
		return errors.New("no turn of the page is running to approve it in")
	}
	var last string
	if n := len(r.Messages); n > 0 {
		last = r.Messages[n-1].Text()
	}
	q := question{
		Kind: "sampling", Server: untrusted.Line(r.Server), Tool: untrusted.Line(r.Tool),
		Message: cutText(untrusted.Text(last), maxAskText), System: cutText(untrusted.Text(r.System), maxAskText),
		Detail: fmt.Sprintf("%d messages, %d tools, up to %d tokens", len(r.Messages), len(r.Tools), r.MaxTokens),
	}
	switch t.ask(ctx, q, nil).action {
	case "accept":
		return nil
	case "decline":
		return errors.New("the user refused it")
	}
	return errors.New("the user did not answer: the call or the turn ended")
}

// sampling is how the servers sample the model with --sampling: each
// request approved on the page, the model's answer shown there.
func (w *webChat) sampling(m llm.Model) mcptool.Sampling {
	return mcptool.Sampling{Model: pageAnswers{m, w}, Approve: w.approve}
}

// pageAnswers is a model whose answers to servers are shown on the page,
// in the turn running.
type pageAnswers struct {
	llm.Model
	w *webChat
}

func (m pageAnswers) Generate(ctx context.Context, req llm.Request) (*llm.Response, error) {
	resp, err := m.Model.Generate(ctx, req)
	t := m.w.current()
	switch {
	case t == nil:
	case err != nil:
		t.emit(webEvent{Type: "note", Text: "the model failed: " + untrusted.Line(err.Error())})
	default:
		answer, _, _ := strings.Cut(strings.TrimSpace(resp.Message.Text()), "\n")
		for _, c := range resp.Message.ToolCalls {
			answer += fmt.Sprintf(" [calls %s]", c.Name)
		}
		t.emit(webEvent{Type: "note", Text: "the model answered: " + cutText(untrusted.Line(answer), maxAskLine)})
	}
	return resp, err
}

// Name is the model's, which the server is told.
func (m pageAnswers) Name() string {
	if n, ok := m.Model.(interface{ Name() string }); ok {
		return n.Name()
	}
	return ""
}

// answer takes the page's answer to the question it shows: {"id",
// "action": accept, decline or cancel, "content": a form's values}. A form's
// values are read as the terminal reads typed lines; one that does not fit
// its field is refused (422) with what is wrong with each, and the question
// stays open. A question that is no longer open (answered, or its call or
// turn ended) is 409.
func (w *webChat) answer(rw http.ResponseWriter, r *http.Request) {
	var req struct {
		ID      string                     `json:"id"`
		Action  string                     `json:"action"`
		Content map[string]json.RawMessage `json:"content"`
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxAnswer+1))
	if err == nil && len(body) > maxAnswer {
		err = fmt.Errorf("over %d bytes", maxAnswer)
	}
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil || !slices.Contains([]string{"accept", "decline", "cancel"}, req.Action) {
		writeError(rw, http.StatusBadRequest, "mcpbridge web: an answer is {\"id\": ..., \"action\": accept, decline or cancel, \"content\": {...}}, up to 64 KiB")
		return
	}
	gone := func() {
		writeError(rw, http.StatusConflict, "mcpbridge web: that question is no longer open: it was answered, or its call or turn ended")
	}
	t := w.current()
	if t == nil {
		gone()
		return
	}
	fm, open := t.openForm(req.ID)
	if !open {
		gone()
		return
	}
	a := pageAnswer{action: req.Action}
	if req.Action == "accept" && fm != nil {
		var problems map[string]string
		if a.content, problems = formAnswer(fm, req.Content); len(problems) > 0 {
			rw.Header().Set("Content-Type", "application/json")
			rw.WriteHeader(http.StatusUnprocessableEntity)
			json.NewEncoder(rw).Encode(map[string]any{"error": "the answer does not fit the form", "fields": problems})
			return
		}
	}
	if !t.answerOpen(req.ID, a) {
		gone()
		return
	}
	rw.WriteHeader(http.StatusNoContent)
}

// formAnswer reads the page's values for form: a text, number, date or
// yes/no as the terminal reads a typed line ([form.Field.Parse]), a
// select's value and a multi-select's values as they are; an empty value
// is no value. problems says what is wrong, by field name ("" for the
// whole).
func formAnswer(fm *form.Form, raw map[string]json.RawMessage) (content map[string]any, problems map[string]string) {
	content, problems = map[string]any{}, map[string]string{}
	for name := range raw {
		if !slices.ContainsFunc(fm.Fields, func(f form.Field) bool { return f.Name == name }) {
			problems[""] = fmt.Sprintf("field %q is not in the form", untrusted.Line(name))
		}
	}
	for _, f := range fm.Fields {
		v, err := fieldAnswer(f, raw[f.Name])
		switch {
		case err != nil:
			problems[f.Name] = untrusted.Line(err.Error())
		case v != nil:
			content[f.Name] = v
		}
	}
	if len(problems) == 0 {
		if err := fm.Check(content); err != nil {
			problems[""] = untrusted.Line(err.Error())
		}
	}
	return content, problems
}

// fieldAnswer reads one field's value from the page: nil for none.
func fieldAnswer(f form.Field, raw json.RawMessage) (any, error) {
	var v any
	if len(raw) > 0 && json.Unmarshal(raw, &v) != nil {
		return nil, errors.New("not JSON")
	}
	if s, ok := v.(string); ok && strings.TrimSpace(s) == "" {
		v = nil
	}
	if l, ok := v.([]any); ok && len(l) == 0 {
		v = nil
	}
	switch {
	case v == nil && f.Required:
		return nil, errors.New("required")
	case v == nil:
		return nil, nil
	case f.Kind == form.SelectField || f.Kind == form.MultiSelectField:
		// Values, not what a person types: checked as they are.
		if err := (&form.Form{Fields: []form.Field{f}}).Check(map[string]any{f.Name: v}); err != nil {
			return nil, errors.New(strings.TrimPrefix(err.Error(), fmt.Sprintf("field %q: ", f.Name)))
		}
		return v, nil
	}
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("want the field's text, got %T", v)
	}
	return f.Parse(s)
}

// stop cancels the turn running, its tool calls cancelled on their
// servers and its question ended: the page's Ctrl-C.
func (w *webChat) stop(rw http.ResponseWriter, r *http.Request) {
	t := w.current()
	if t == nil {
		writeError(rw, http.StatusConflict, "mcpbridge web: no turn is running")
		return
	}
	t.mu.Lock()
	t.stopped = true
	t.mu.Unlock()
	t.cancel()
	rw.WriteHeader(http.StatusNoContent)
}
