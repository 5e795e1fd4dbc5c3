package apphost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/tool"
)

// ProtocolVersion is the version of the MCP Apps extension the host speaks.
const protocolVersion = "2026-01-26"

// JSON-RPC error codes.
const (
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternal       = -32603
	codeRefused        = -32000 // the extension's implementation-defined error: denied
)

// Bounds of what a frame's message may hold.
const (
	maxMethod  = 128
	maxID      = 128
	maxName    = 256
	maxURL     = 4096
	maxText    = 64 << 10
	maxLogData = 4 << 10
)

// A message is one JSON-RPC message of a frame.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// A rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// A reply is the JSON-RPC response the page posts back to the frame.
type reply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// An action is what the page does for a message it alone can handle (a
// message into the conversation, a link the user confirms, the frame's
// size); the page answers a request it carries. Its fields are checked
// here: the page takes them as they are.
type action struct {
	Kind       string          `json:"kind"` // initialized, message, context, open-link, display-mode, size
	Text       string          `json:"text,omitempty"`
	Structured json.RawMessage `json:"structured,omitempty"`
	URL        string          `json:"url,omitempty"`
	Mode       string          `json:"mode,omitempty"`
	Declared   *bool           `json:"declared,omitempty"` // display-mode: the app declared the mode (or declared none)
	Width      *float64        `json:"width,omitempty"`
	Height     *float64        `json:"height,omitempty"`
}

// answer is what rpc returns to the page: a reply to post to the frame,
// an action to take (whose reply the page makes), or neither.
type answer struct {
	Reply  *reply  `json:"reply,omitempty"`
	Action *action `json:"action,omitempty"`
}

// rpc answers one message the page passed on from frame f.
func (h *host) rpc(w http.ResponseWriter, r *http.Request, f *frame) {
	var raw json.RawMessage
	if err := readJSON(r, &raw); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "apphost: " + err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, h.handle(r.Context(), f, raw))
}

// handle checks a frame's message and answers it. Everything in it is the
// app's: the envelope, the method and every parameter are checked before
// anything is done, and a request that asks for more than the app may have
// is refused with an error that says why.
func (h *host) handle(ctx context.Context, f *frame, raw json.RawMessage) answer {
	var m message
	if err := json.Unmarshal(raw, &m); err != nil || m.JSONRPC != "2.0" || m.Method == "" || len(m.Method) > maxMethod {
		// Nothing the app could match a reply to: it is dropped.
		h.refused(ctx, f, m.Method, "not a JSON-RPC 2.0 request or notification")
		return answer{}
	}
	notification := len(m.ID) == 0 || string(m.ID) == "null"
	if !notification && !validID(m.ID) {
		h.refused(ctx, f, m.Method, "its id is neither a string of at most 128 bytes nor an integer")
		return answer{}
	}
	if len(m.Params) > 0 && string(m.Params) != "null" && !isObject(m.Params) {
		if notification {
			return answer{}
		}
		return answer{Reply: fail(m.ID, codeInvalidParams, "params is not an object")}
	}
	if notification {
		return h.notified(ctx, f, m)
	}
	result, act, err := h.request(ctx, f, m)
	var re *rpcError
	switch {
	case errors.As(err, &re):
		h.refused(ctx, f, m.Method, re.Message)
		return answer{Reply: fail(m.ID, re.Code, re.Message)}
	case err != nil:
		return answer{Reply: fail(m.ID, codeInternal, untrusted.Line(err.Error()))}
	case act != nil:
		return answer{Action: act}
	}
	return answer{Reply: &reply{JSONRPC: "2.0", ID: m.ID, Result: result}}
}

// notified handles a notification of the frame: nothing is answered.
func (h *host) notified(ctx context.Context, f *frame, m message) answer {
	switch m.Method {
	case "ui/notifications/initialized":
		return answer{Action: &action{Kind: "initialized"}}
	case "ui/notifications/size-changed":
		var p struct{ Width, Height *float64 }
		if json.Unmarshal(m.Params, &p) != nil || !size(p.Width) || !size(p.Height) {
			return answer{}
		}
		return answer{Action: &action{Kind: "size", Width: p.Width, Height: p.Height}}
	case "notifications/message":
		var p struct {
			Level  string          `json:"level"`
			Logger string          `json:"logger"`
			Data   json.RawMessage `json:"data"`
		}
		if json.Unmarshal(m.Params, &p) == nil {
			data := string(p.Data)
			var s string
			if json.Unmarshal(p.Data, &s) == nil {
				data = s
			}
			h.cfg.Logger.InfoContext(ctx, "app log", "server", f.server, "tool", f.tool,
				"level", untrusted.Line(cut(p.Level, 16)), "logger", untrusted.Line(cut(p.Logger, 64)), "data", untrusted.Line(cut(data, maxLogData)))
		}
	}
	return answer{}
}

// request handles a request of the frame: a result to reply with, an
// action for the page, or an error (a *rpcError for what the app got
// wrong or may not do).
func (h *host) request(ctx context.Context, f *frame, m message) (any, *action, error) {
	switch m.Method {
	case "ui/initialize":
		return h.initialize(f, m.Params)
	case "ping":
		return struct{}{}, nil, nil
	case "tools/call":
		return h.callForApp(ctx, f, m.Params)
	case "resources/read":
		return h.read(ctx, f, m.Params)
	case "ui/open-link":
		var p struct{ URL string }
		if json.Unmarshal(m.Params, &p) != nil || !linkable(p.URL) {
			return nil, nil, &rpcError{codeInvalidParams, "ui/open-link: url is not an absolute http or https URL of at most 4096 bytes"}
		}
		if !f.handles.Links {
			return nil, nil, &rpcError{codeRefused, "ui/open-link: this host opens no links"}
		}
		return nil, &action{Kind: "open-link", URL: p.URL}, nil
	case "ui/message":
		text, err := messageText(m.Params)
		if err != nil {
			return nil, nil, err
		}
		if !f.handles.Message {
			return nil, nil, &rpcError{codeRefused, "ui/message: this host takes no messages from apps"}
		}
		return nil, &action{Kind: "message", Text: text}, nil
	case "ui/update-model-context":
		act, err := modelContext(m.Params)
		if err != nil {
			return nil, nil, err
		}
		if !f.handles.ModelContext {
			return nil, nil, &rpcError{codeRefused, "ui/update-model-context: this host gives its model no context from apps"}
		}
		return nil, act, nil
	case "ui/request-display-mode":
		var p struct{ Mode string }
		if json.Unmarshal(m.Params, &p) != nil || !slices.Contains(displayModes, p.Mode) {
			return nil, nil, &rpcError{codeInvalidParams, `ui/request-display-mode: mode is none of "inline", "fullscreen", "pip"`}
		}
		f.mu.Lock()
		declared := f.modes == nil || slices.Contains(f.modes, p.Mode)
		f.mu.Unlock()
		return nil, &action{Kind: "display-mode", Mode: p.Mode, Declared: &declared}, nil
	}
	return nil, nil, &rpcError{codeMethodNotFound, fmt.Sprintf("method %q is not one an app may call", untrusted.Line(m.Method))}
}

var displayModes = []string{"inline", "fullscreen", "pip"}

// initialize answers ui/initialize: the host, what it does for the app,
// and the context the page gave with the tool added. The display modes
// the app declares are kept, for it may not be switched to another.
func (h *host) initialize(f *frame, params json.RawMessage) (any, *action, error) {
	var p struct {
		AppCapabilities struct {
			AvailableDisplayModes []string `json:"availableDisplayModes"`
		} `json:"appCapabilities"`
	}
	if len(params) > 0 && json.Unmarshal(params, &p) != nil {
		return nil, nil, &rpcError{codeInvalidParams, "ui/initialize: appCapabilities is malformed"}
	}
	if modes := p.AppCapabilities.AvailableDisplayModes; modes != nil {
		f.mu.Lock()
		f.modes = slices.DeleteFunc(slices.Clone(modes), func(m string) bool { return !slices.Contains(displayModes, m) })
		f.mu.Unlock()
	}
	ctx := map[string]any{}
	if f.context != nil {
		json.Unmarshal(f.context, &ctx)
	}
	if f.info != nil {
		ctx["toolInfo"] = map[string]any{"tool": map[string]any{
			"name": f.tool, "description": f.info.Description, "inputSchema": f.info.InputSchema,
		}}
	}
	caps := map[string]any{
		"serverTools":     map[string]any{},
		"serverResources": map[string]any{},
		"logging":         map[string]any{},
		"sandbox": map[string]any{
			"permissions": granted(f),
			"csp":         f.app.CSP,
		},
	}
	if f.handles.Links {
		caps["openLinks"] = map[string]any{}
	}
	if f.handles.Message {
		caps["message"] = map[string]any{"text": map[string]any{}}
	}
	if f.handles.ModelContext {
		caps["updateModelContext"] = map[string]any{"text": map[string]any{}, "structuredContent": map[string]any{}}
	}
	return map[string]any{
		"protocolVersion":  protocolVersion,
		"hostInfo":         map[string]any{"name": "mcpbridge", "version": "1"},
		"hostCapabilities": caps,
		"hostContext":      ctx,
	}, nil, nil
}

// granted is what the frame's allow attribute grants, as the extension
// names it.
func granted(f *frame) map[string]any {
	out := map[string]any{}
	for name, on := range map[string]bool{"camera": f.app.Permissions.Camera, "microphone": f.app.Permissions.Microphone,
		"geolocation": f.app.Permissions.Geolocation, "clipboardWrite": f.app.Permissions.ClipboardWrite} {
		if on {
			out[name] = map[string]any{}
		}
	}
	return out
}

// callForApp runs the app's tools/call, if the app may make it: a tool
// of its own server, one the server lets apps call, that the policy lets
// through.
func (h *host) callForApp(ctx context.Context, f *frame, params json.RawMessage) (any, *action, error) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(params, &p) != nil || p.Name == "" || len(p.Name) > maxName {
		return nil, nil, &rpcError{codeInvalidParams, "tools/call: name is not a string of 1 to 256 bytes"}
	}
	if len(p.Arguments) > 0 && string(p.Arguments) != "null" && !isObject(p.Arguments) {
		return nil, nil, &rpcError{codeInvalidParams, fmt.Sprintf("tools/call %q: arguments is not an object", untrusted.Line(p.Name))}
	}
	if msg := h.mayCall(ctx, f, p.Name, p.Arguments); msg != "" {
		return nil, nil, &rpcError{codeRefused, msg}
	}
	release, err := f.slot()
	if err != nil {
		return nil, nil, err
	}
	defer release()
	h.cfg.Logger.InfoContext(ctx, "app calls a tool", "server", f.server, "app", f.tool, "tool", p.Name)
	args := any(p.Arguments)
	if len(p.Arguments) == 0 || string(p.Arguments) == "null" {
		args = nil
	}
	res, err := f.p.CallToolResult(ctx, p.Name, args)
	if err != nil {
		return nil, nil, err
	}
	return res, nil, nil
}

// mayCall says why the app of f may not call the tool name with args
// ("" if it may): only its own server's tools are known to it (a name of
// another server's is not among them, an alias included); a tool must let
// apps call it (_meta.ui.visibility holds "app", or is absent); one the
// model may call too must be one the model is offered (the server's
// filters let it through); and the policy must let the call through.
func (h *host) mayCall(ctx context.Context, f *frame, name string, args json.RawMessage) string {
	meta, listed := f.p.ToolMeta()[name]
	vis := tool.Definition{Meta: meta}.App().Visibility
	switch {
	case listed && vis != nil && !slices.Contains(vis, "app"):
		return fmt.Sprintf("tools/call: the tool %q is not visible to apps (its _meta.ui.visibility leaves out \"app\")", untrusted.Line(name))
	case listed && vis != nil && !slices.Contains(vis, "model"):
		// The app's own tool: the host calls it for the app alone.
	case !offered(f, name):
		return fmt.Sprintf("tools/call: server %q has no tool %q an app may call", untrusted.Line(f.server), untrusted.Line(name))
	}
	if h.cfg.Policy != nil {
		alias := tool.Origin{Server: f.server, Tool: name}.Alias()
		if err := h.cfg.Policy.Check(ctx, alias, args); err != nil {
			return "tools/call: " + untrusted.Line(err.Error())
		}
	}
	return ""
}

// offered reports whether the model is offered the tool name of f's server
// (its filters let it through).
func offered(f *frame, name string) bool {
	return slices.ContainsFunc(f.p.Tools(), func(d tool.Definition) bool {
		return d.Origin.Tool == name || (d.Origin == (tool.Origin{}) && d.Name == name)
	})
}

// read runs the app's resources/read on its own server.
func (h *host) read(ctx context.Context, f *frame, params json.RawMessage) (any, *action, error) {
	var p struct{ URI string }
	if json.Unmarshal(params, &p) != nil || p.URI == "" || len(p.URI) > maxURL || !utf8.ValidString(p.URI) {
		return nil, nil, &rpcError{codeInvalidParams, "resources/read: uri is not a string of 1 to 4096 bytes"}
	}
	release, err := f.slot()
	if err != nil {
		return nil, nil, err
	}
	defer release()
	res, err := f.p.ReadResource(ctx, p.URI)
	if err != nil {
		return nil, nil, err
	}
	return res, nil, nil
}

// slot takes one of the frame's places for a call or read, or says that
// they are all taken.
func (f *frame) slot() (release func(), err error) {
	select {
	case f.inflight <- struct{}{}:
		return func() { <-f.inflight }, nil
	default:
		return nil, &rpcError{codeRefused, fmt.Sprintf("the app has %d calls and reads running; wait for one", maxInFlight)}
	}
}

// messageText is the text of a ui/message: a user's message of text
// blocks (one, or an array), at most maxText bytes.
func messageText(params json.RawMessage) (string, error) {
	var p struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(params, &p) != nil || p.Role != "user" {
		return "", &rpcError{codeInvalidParams, `ui/message: role is not "user"`}
	}
	text, ok := textBlocks(p.Content)
	if !ok || strings.TrimSpace(text) == "" || len(text) > maxText {
		return "", &rpcError{codeInvalidParams, "ui/message: content is not text blocks of 1 to 65536 bytes"}
	}
	return text, nil
}

// modelContext is the action of a ui/update-model-context: its text
// blocks and structured content, each at most maxText bytes.
func modelContext(params json.RawMessage) (*action, error) {
	var p struct {
		Content           json.RawMessage `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	json.Unmarshal(params, &p)
	act := &action{Kind: "context"}
	if len(p.Content) > 0 && string(p.Content) != "null" {
		text, ok := textBlocks(p.Content)
		if !ok || len(text) > maxText {
			return nil, &rpcError{codeInvalidParams, "ui/update-model-context: content is not text blocks of at most 65536 bytes"}
		}
		act.Text = text
	}
	if len(p.StructuredContent) > 0 && string(p.StructuredContent) != "null" {
		if !isObject(p.StructuredContent) || len(p.StructuredContent) > maxText {
			return nil, &rpcError{codeInvalidParams, "ui/update-model-context: structuredContent is not an object of at most 65536 bytes"}
		}
		var compact bytes.Buffer
		json.Compact(&compact, p.StructuredContent)
		act.Structured = compact.Bytes()
	}
	return act, nil
}

// textBlocks joins the text of content, a text block or an array of them,
// with newlines; ok is false for anything else.
func textBlocks(content json.RawMessage) (string, bool) {
	type block struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	var list []block
	if err := json.Unmarshal(content, &list); err != nil {
		var one block
		if json.Unmarshal(content, &one) != nil {
			return "", false
		}
		list = []block{one}
	}
	var parts []string
	for _, b := range list {
		if b.Type != "text" || b.Text == nil || !utf8.ValidString(*b.Text) {
			return "", false
		}
		parts = append(parts, *b.Text)
	}
	return strings.Join(parts, "\n"), len(parts) > 0
}

// linkable reports whether u is a URL a page may offer the user to open:
// absolute http or https, with a host.
func linkable(u string) bool {
	if len(u) > maxURL || !utf8.ValidString(u) {
		return false
	}
	p, err := url.Parse(u)
	return err == nil && (p.Scheme == "http" || p.Scheme == "https") && p.Host != ""
}

// size reports whether v is absent or a size in pixels a page can take.
func size(v *float64) bool {
	return v == nil || (!math.IsNaN(*v) && *v >= 0 && *v <= 100000)
}

// validID reports whether id is a JSON-RPC id the page can echo: a string
// of at most maxID bytes, or an integer within 2^53.
func validID(id json.RawMessage) bool {
	var s string
	if json.Unmarshal(id, &s) == nil {
		return len(s) <= maxID
	}
	var n json.Number
	d := json.NewDecoder(bytes.NewReader(id))
	d.UseNumber()
	if d.Decode(&n) != nil {
		return false
	}
	i, err := n.Int64()
	return err == nil && i > -(1<<53) && i < 1<<53 && !strings.ContainsAny(string(n), ".eE")
}

func fail(id json.RawMessage, code int, msg string) *reply {
	return &reply{JSONRPC: "2.0", ID: id, Error: &rpcError{Code: code, Message: msg}}
}

func (e *rpcError) Error() string { return e.Message }

// refused logs what a frame was refused.
func (h *host) refused(ctx context.Context, f *frame, method, why string) {
	h.cfg.Logger.WarnContext(ctx, "app refused", "server", f.server, "tool", f.tool, "method", untrusted.Line(cut(method, maxMethod)), "why", why)
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
