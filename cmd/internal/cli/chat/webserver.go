package chat

import (
	"context"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/mcpbridge/mcpbridge/agent"
	"github.com/mcpbridge/mcpbridge/apphost"
	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/tool"
)

//go:embed webpage
var webpage embed.FS

// Bounds of what the page sends.
const (
	maxTurnBody  = 512 << 10 // a turn: the user's text and the apps' contexts
	maxContexts  = 8         // apps' contexts sent with one turn
	maxShownText = 4000      // of a result, shown on the page
)

// A webChat is the page's side of mcpbridge web: the servers, the agent
// (nil without a model) and each page's conversation (webconv.go), one
// turn at a time.
type webChat struct {
	ts        *catalog.Toolset
	agent     *agent.Agent
	modelName string
	noModel   string // what to set, when no model is configured
	secret    string
	errw      io.Writer // stderr: what is declined with no turn to ask in

	turnMu sync.Mutex // held while a turn runs, on any page
	convs  conversations

	mu   sync.Mutex
	turn *webTurn // the turn running; nil between turns
}

// handler serves the page, its script and style, the apps' host and the
// API, to requests whose Host is one of hosts (nil: a loopback name),
// against DNS rebinding. All but the page's static files and what an
// iframe loads (the host script, an app's document under its unguessable
// id) need the run's secret, which only the page opened at the printed
// address has.
func (w *webChat) handler(hosts []string) http.Handler {
	static, _ := fs.Sub(webpage, "webpage")
	files := http.FileServerFS(static)
	mux := http.NewServeMux()
	page := func(rw http.ResponseWriter, r *http.Request) {
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/"
		files.ServeHTTP(rw, r2)
	}
	mux.Handle("GET /{$}", pageHeaders(http.HandlerFunc(page)))
	mux.Handle("GET /app", pageHeaders(http.HandlerFunc(page)))
	mux.Handle("GET /static/", pageHeaders(http.StripPrefix("/static", files)))
	apps := apphost.New(apphost.Config{Servers: w.ts.Public, Hosts: hosts})
	mux.Handle("/apps/", http.StripPrefix("/apps", w.guardApps(apps)))
	mux.Handle("GET /api/info", w.guard(http.HandlerFunc(w.info)))
	mux.Handle("POST /api/chat", w.guard(http.HandlerFunc(w.chat)))
	mux.Handle("GET /api/conversation", w.guard(http.HandlerFunc(w.transcript)))
	mux.Handle("POST /api/answer", w.guard(http.HandlerFunc(w.answer)))
	mux.Handle("POST /api/stop", w.guard(http.HandlerFunc(w.stop)))
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if !sdkfix.HostAllowed(r.Host, hosts) {
			writeError(rw, http.StatusForbidden, fmt.Sprintf("mcpbridge web: Host %q is not the page's name (--allow-host)", r.Host))
			return
		}
		mux.ServeHTTP(rw, r)
	})
}

// pageHeaders serves the page's own files under a policy of their own:
// scripts and styles of the page alone, frames of its origin (the apps',
// sandboxed apart), no embedding in another site's page.
func pageHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		h := rw.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "+
			"frame-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(rw, r)
	})
}

// guard lets through a request that carries the run's secret.
func (w *webChat) guard(next http.Handler) http.Handler {
	want := []byte("Bearer " + w.secret)
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			writeError(rw, http.StatusUnauthorized, "mcpbridge web: open the address mcpbridge web printed, with its #secret")
			return
		}
		next.ServeHTTP(rw, r)
	})
}

// guardApps guards the apps' host but what an element loads, which carries
// no header: the host script and an app's document.
func (w *webChat) guardApps(next http.Handler) http.Handler {
	guarded := w.guard(next)
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && (r.URL.Path == "/host.js" || strings.HasPrefix(r.URL.Path, "/frame/")) {
			next.ServeHTTP(rw, r)
			return
		}
		guarded.ServeHTTP(rw, r)
	})
}

func writeError(rw http.ResponseWriter, status int, msg string) {
	rw.Header().Set("Content-Type", "application/json")
	rw.WriteHeader(status)
	json.NewEncoder(rw).Encode(map[string]string{"error": msg})
}

// info says what the page shows before a turn: the model (or what to set),
// and the tools that have an app, by the name the model calls them.
func (w *webChat) info(rw http.ResponseWriter, r *http.Request) {
	type app struct {
		Name   string `json:"name"`
		Server string `json:"server"`
		Tool   string `json:"tool"`
	}
	out := struct {
		Model   string   `json:"model"`
		NoModel string   `json:"noModel,omitempty"`
		Servers []string `json:"servers"`
		Apps    []app    `json:"apps"`
	}{NoModel: w.noModel, Servers: []string{}, Apps: []app{}}
	if w.agent != nil {
		out.Model = w.modelName
		if out.Model == "" {
			out.Model = "the default model"
		}
	}
	for _, st := range w.ts.Status() {
		out.Servers = append(out.Servers, untrusted.Line(st.Name))
	}
	snap := w.ts.Snapshot(r.Context())
	for _, d := range snap.Definitions() {
		if server, own, ok := snap.Lookup(d.Name); ok && d.App().ResourceURI != "" {
			out.Apps = append(out.Apps, app{Name: d.Name, Server: server, Tool: own})
		}
	}
	rw.Header().Set("Content-Type", "application/json")
	json.NewEncoder(rw).Encode(out)
}

// A webEvent is one line of a turn's stream, or of a conversation's
// transcript.
type webEvent struct {
	Type      string          `json:"type"`           // user (transcripts only), text, call, progress, result, ask, asked, note, answer, error
	From      string          `json:"from,omitempty"` // user: whose words, when not the person's
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Server    string          `json:"server,omitempty"`
	Tool      string          `json:"tool,omitempty"`
	App       bool            `json:"app,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Text      string          `json:"text,omitempty"`
	IsError   bool            `json:"isError,omitempty"`
	Result    any             `json:"result,omitempty"`
	Progress  float64         `json:"progress,omitempty"`
	Total     float64         `json:"total,omitempty"`
	Question  *question       `json:"question,omitempty"` // ask: what a server asks
	Action    string          `json:"action,omitempty"`   // asked: how it ended
}

// A webTurn is a turn running: where its events go, its calls, and the
// question it shows (webask.go).
type webTurn struct {
	convs  *conversations
	conv   *conversation // what it records what it shows in
	snap   *catalog.Snapshot
	ctx    context.Context // ended by Stop, the page closing the stream, Ctrl-C
	cancel context.CancelFunc
	slot   chan struct{} // held by the question shown: one at a time

	mu           sync.Mutex
	out          io.Writer
	flush        func()
	ended        bool
	stopped      bool // by the page's Stop
	next         int
	calls        []*webCall
	nextQuestion int
	question     *openQuestion // the question shown, or nil
}

// newTurn returns a turn whose events go to out, under ctx.
func newTurn(ctx context.Context, snap *catalog.Snapshot, out io.Writer, flush func()) *webTurn {
	ctx, cancel := context.WithCancel(ctx)
	return &webTurn{snap: snap, ctx: ctx, cancel: cancel, slot: make(chan struct{}, 1), out: out, flush: flush}
}

type webCall struct {
	id, name string
	args     json.RawMessage
	claimed  bool // its handler has started
	app      bool
}

// emit writes ev as one line, unless the turn has ended, and keeps it in
// the conversation's transcript unless it is transient (the answer's
// pieces, progress, questions).
func (t *webTurn) emit(ev webEvent) {
	data, err := json.Marshal(ev)
	if err != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended {
		return
	}
	switch ev.Type {
	case "user", "call", "result", "note", "answer", "error":
		if t.conv != nil {
			t.convs.record(t.conv, ev)
		}
	}
	t.out.Write(append(data, '\n'))
	t.flush()
}

// chat runs one turn of the conversation, its events streamed as lines of
// JSON while it runs.
func (w *webChat) chat(rw http.ResponseWriter, r *http.Request) {
	if w.agent == nil {
		writeError(rw, http.StatusServiceUnavailable, w.noModel)
		return
	}
	var req struct {
		Conversation string `json:"conversation"`
		Text         string `json:"text"`
		// From names the app whose ui/message the person sent on; the
		// text is then the app's.
		From *struct {
			Server string `json:"server"`
			Tool   string `json:"tool"`
		} `json:"from"`
		Context []struct {
			App        string          `json:"app"`
			Text       string          `json:"text"`
			Structured json.RawMessage `json:"structured"`
		} `json:"context"`
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxTurnBody+1))
	if err == nil && len(body) > maxTurnBody {
		err = fmt.Errorf("over %d bytes", maxTurnBody)
	}
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil || strings.TrimSpace(req.Text) == "" || len(req.Context) > maxContexts || !conversationID.MatchString(req.Conversation) {
		writeError(rw, http.StatusBadRequest, "mcpbridge web: a turn is {\"conversation\": ID, \"text\": ..., \"from\": {server, tool} of an app, \"context\": [up to 8 apps' contexts]}")
		return
	}
	if !w.turnMu.TryLock() {
		writeError(rw, http.StatusConflict, "mcpbridge web: a turn is running, on this page or another; wait for its answer")
		return
	}
	defer w.turnMu.Unlock()

	text, shown := req.Text, webEvent{Type: "user", Text: req.Text}
	if f := req.From; f != nil {
		// What an app said (ui/message) is its server's words, which the
		// person chose to pass on, and is told the model as such: an app
		// that wrote "call bank_transfer" is not the person asking.
		server, own := untrusted.Line(f.Server), untrusted.Line(f.Tool)
		text = fmt.Sprintf("[The app of server %q (its tool %s) wrote this message, not the user, who chose to send it on:]\n%s", server, own, untrusted.Text(req.Text))
		shown.From = fmt.Sprintf("from the app of %s (server %s), sent on by you", own, server)
	}
	for _, c := range req.Context {
		// What an app gave for the model: its server wrote it.
		text += fmt.Sprintf("\n\n[The app of %s gave this context; its server wrote it, not the user:]\n%s", untrusted.Line(c.App), untrusted.Text(c.Text))
		if len(c.Structured) > 0 && json.Valid(c.Structured) {
			text += "\n" + untrusted.Text(string(c.Structured))
		}
	}
	rw.Header().Set("Content-Type", "application/x-ndjson")
	rw.Header().Set("Cache-Control", "no-store")
	flusher, _ := rw.(http.Flusher)
	turn := newTurn(r.Context(), w.ts.Snapshot(r.Context()), rw, func() {
		if flusher != nil {
			flusher.Flush()
		}
	})
	conv := w.convs.get(req.Conversation)
	turn.convs, turn.conv = &w.convs, conv
	w.begin(turn)
	defer w.end(turn)
	turn.emit(shown)
	res, err := w.agent.Run(turn.ctx, append(slices.Clip(w.convs.messages(conv)), llm.UserText(text)))
	if res != nil {
		w.convs.setMessages(conv, res.Messages)
	}
	turn.mu.Lock()
	stopped := turn.stopped
	turn.mu.Unlock()
	switch {
	case err != nil && stopped:
		turn.emit(webEvent{Type: "error", Text: "stopped: the turn and its tool calls were cancelled"})
	case err != nil:
		turn.emit(webEvent{Type: "error", Text: untrusted.Line(err.Error())})
	default:
		turn.emit(webEvent{Type: "answer", Text: untrusted.Text(res.Text)})
	}
}

// begin makes t the turn running.
func (w *webChat) begin(t *webTurn) {
	w.mu.Lock()
	w.turn = t
	w.mu.Unlock()
}

// end ends the turn t: its question, if one is still shown, and its
// stream.
func (w *webChat) end(t *webTurn) {
	w.mu.Lock()
	w.turn = nil
	w.mu.Unlock()
	t.cancel()
	t.mu.Lock()
	t.ended = true
	t.mu.Unlock()
}

func (w *webChat) current() *webTurn {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.turn
}

// started is the agent's OnToolCall hook: the call goes to the page, with
// its server's tool and whether it has an app to render, and so does its
// result when it ends.
func (w *webChat) started(call llm.ToolCall) func(tool.Reply, error) {
	t := w.current()
	if t == nil {
		return nil
	}
	ev := webEvent{Type: "call", Name: untrusted.Line(call.Name), Arguments: json.RawMessage(`{}`)}
	if len(call.Arguments) > 0 && json.Valid(call.Arguments) {
		ev.Arguments = call.Arguments
	}
	if server, own, ok := t.snap.Lookup(call.Name); ok {
		ev.Server, ev.Tool = server, own
		if p, ok := w.ts.Provider(server); ok {
			ev.App = tool.Definition{Meta: p.ToolMeta()[own]}.App().ResourceURI != ""
		}
	}
	t.mu.Lock()
	t.next++
	ev.ID = fmt.Sprintf("c%d", t.next)
	t.calls = append(t.calls, &webCall{id: ev.ID, name: call.Name, args: call.Arguments, app: ev.App})
	t.mu.Unlock()
	t.emit(ev)
	return func(res tool.Reply, err error) {
		out := webEvent{Type: "result", ID: ev.ID}
		switch {
		case errors.Is(err, context.Canceled):
			out.IsError, out.Text = true, "cancelled" // by Stop: the chain says nothing more
		case err != nil:
			out.IsError, out.Text = true, untrusted.Line(err.Error())
		default:
			out.Text = cutText(untrusted.Text(res.Text()), maxShownText)
		}
		if ev.App {
			out.Result = appResult(res, err)
		}
		t.emit(out)
	}
}

// claim returns the id of the first call shown of name with args whose
// handler has not started, "" if none: the handler's progress is that
// call's.
func (t *webTurn) claim(name string, args json.RawMessage) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range t.calls {
		if !c.claimed && c.name == name && string(c.args) == string(args) {
			c.claimed = true
			return c.id
		}
	}
	return ""
}

// appResult is the result an app is given (a CallToolResult) of what the
// model's call returned: its text and images, its structured content; a
// failure is a result marked isError that says what failed.
func appResult(res tool.Reply, err error) map[string]any {
	if err != nil {
		return map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": err.Error()}}}
	}
	content := []any{}
	for _, p := range res.Parts {
		switch p := p.(type) {
		case tool.TextPart:
			content = append(content, map[string]any{"type": "text", "text": p.Text})
		case tool.ImagePart:
			content = append(content, map[string]any{"type": "image", "mimeType": p.MIMEType, "data": base64.StdEncoding.EncodeToString(p.Data)})
		}
	}
	out := map[string]any{"content": content}
	if len(res.Structured) > 0 {
		out["structuredContent"] = res.Structured
	}
	return out
}

func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// progressSource offers the toolset's tools with a handler that shows each
// call's progress on the page.
type progressSource struct {
	ts *catalog.Toolset
	w  *webChat
}

func (s progressSource) Offer(ctx context.Context) (tool.Set, error) {
	set, err := s.ts.Offer(ctx)
	if err == nil {
		set.Handler = progressHandler{next: set.Handler, w: s.w}
	}
	return set, err
}

type progressHandler struct {
	next tool.Handler
	w    *webChat
}

func (h progressHandler) Call(ctx context.Context, name string, args json.RawMessage) (tool.Reply, error) {
	if t := h.w.current(); t != nil {
		if id := t.claim(name, args); id != "" {
			ctx = tool.WithProgress(ctx, func(p tool.Progress) {
				t.emit(webEvent{Type: "progress", ID: id, Progress: p.Progress, Total: p.Total, Text: cutText(untrusted.Line(p.Message), 200)})
			})
		}
	}
	return h.next.Call(ctx, name, args)
}
