package apphost

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/mcpbridge/mcpbridge/internal/handle"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/tool"
)

// sandbox is the frame's sandbox, as the iframe's attribute and in its
// document's policy: scripts, and forms whose submit event the app handles
// (form-action 'none' sends none anywhere). Without allow-same-origin the
// document's origin is opaque: unique, unlike the host page's and every
// other frame's, so that it reaches no cookie, storage or DOM of theirs.
// No popups, no top navigation, no modals, no downloads.
const sandbox = "allow-scripts allow-forms"

// A frame is one app open on a page: the tool it belongs to, the document
// read from its server, and what its page and its app said of themselves.
type frame struct {
	p            *mcpclient.Provider
	server, tool string
	app          *mcpclient.AppResource
	info         *tool.Definition // the tool as the model is offered it; nil for an app-only tool
	context      json.RawMessage  // the host context the page gave, an object
	handles      handles
	inflight     chan struct{} // a slot per call or read running
	used         uint64        // host.clock when last used

	mu    sync.Mutex
	modes []string // the display modes the app declared at ui/initialize; nil: none said
}

// handles says which of the app's requests the page answers.
type handles struct {
	Message      bool `json:"message"`      // ui/message
	ModelContext bool `json:"modelContext"` // ui/update-model-context
	Links        bool `json:"links"`        // ui/open-link
}

type openRequest struct {
	Server  string          `json:"server"`
	Tool    string          `json:"tool"`
	Context json.RawMessage `json:"context"`
	Handles handles         `json:"handles"`
}

// opened is what the page builds the frame from.
type opened struct {
	Frame         string `json:"frame"`
	Src           string `json:"src"` // relative to the handler's root
	Sandbox       string `json:"sandbox"`
	Allow         string `json:"allow"`
	PrefersBorder *bool  `json:"prefersBorder"`
	Policy        string `json:"policy"` // the frame's Content-Security-Policy, for the page to show
	URI           string `json:"uri"`
}

// open reads the app of the tool a page names and opens a frame for it.
func (h *host) open(w http.ResponseWriter, r *http.Request) {
	var req openRequest
	if err := readJSON(r, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "apphost: open: " + err.Error()})
		return
	}
	if req.Context != nil && !isObject(req.Context) {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "apphost: open: the host context is not an object"})
		return
	}
	pub, ok := h.cfg.Servers(req.Server)
	p := handle.Core[mcpclient.Provider](pub)
	if !ok || req.Server == "" {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("apphost: no server %q", untrusted.Line(req.Server))})
		return
	}
	uri := tool.Definition{Meta: p.ToolMeta()[req.Tool]}.App().ResourceURI
	if uri == "" || req.Tool == "" {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("apphost: server %q has no tool %q with an app", untrusted.Line(req.Server), untrusted.Line(req.Tool))})
		return
	}
	app, err := p.ReadApp(r.Context(), uri)
	if err != nil {
		h.cfg.Logger.WarnContext(r.Context(), "app not read", "server", req.Server, "tool", req.Tool, "uri", uri, "error", err)
		writeJSON(w, http.StatusBadGateway, map[string]string{"error": "apphost: " + untrusted.Line(err.Error())})
		return
	}
	f := &frame{p: p, server: req.Server, tool: req.Tool, app: app, context: req.Context, handles: req.Handles,
		inflight: make(chan struct{}, maxInFlight)}
	for _, d := range p.Tools() {
		if d.Origin.Tool == req.Tool || (d.Origin == (tool.Origin{}) && d.Name == req.Tool) {
			f.info = &d
			break
		}
	}
	id := h.add(f)
	h.cfg.Logger.InfoContext(r.Context(), "app opened", "server", req.Server, "tool", req.Tool, "uri", uri, "csp", framePolicy(app))
	writeJSON(w, http.StatusOK, opened{Frame: id, Src: "frame/" + id, Sandbox: sandbox, Allow: allow(app.Permissions),
		PrefersBorder: app.PrefersBorder, Policy: framePolicy(app), URI: app.URI})
}

// serveFrame serves the document of frame id: the server's HTML as it sent
// it, under the policy its server declared. The policy is a header, which
// nothing in the document can loosen, and it sandboxes the document
// itself, so that opened on its own, not in the page's frame, it is still
// of an opaque origin. The Connection-Allowlist beside it lets the
// document connect to the origins declared and nowhere else, by channels
// CSP does not govern: WebRTC, resource hints, its own navigations; a
// frame it makes itself (srcdoc, about:blank) inherits both.
func (h *host) serveFrame(w http.ResponseWriter, r *http.Request, id string) {
	f := h.frame(id)
	if f == nil {
		http.Error(w, "no such app", http.StatusNotFound)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Content-Security-Policy", framePolicy(f.app)+"; sandbox "+sandbox)
	hd.Set("Connection-Allowlist", mcpclient.ConnectionAllowlist(f.app.CSP))
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	w.Write([]byte(f.app.HTML))
}

// framePolicy is the policy of an app's frame: the one its server's
// declarations make (mcptool.AppCSP's Policy: nothing by default,
// object-src 'none'), and no form sent anywhere.
func framePolicy(app *mcpclient.AppResource) string {
	return app.CSP.Policy() + "; form-action 'none'"
}

// allow is the iframe's allow attribute for what the app asked: each
// feature for the frame's own document, none it did not ask for.
func allow(p mcpclient.AppPermissions) string {
	var list []string
	for _, f := range []struct {
		on   bool
		name string
	}{{p.Camera, "camera"}, {p.Microphone, "microphone"}, {p.Geolocation, "geolocation"}, {p.ClipboardWrite, "clipboard-write"}} {
		if f.on {
			list = append(list, f.name)
		}
	}
	return strings.Join(list, "; ")
}

func isObject(data json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(data, &m) == nil && m != nil
}

// call makes the host's call of the frame's own tool, with the arguments
// the page gives, for a page that renders an app with no result of its own
// (a developer's page of one tool): the policy judges it as it judges the
// model's calls, and the result goes back as the server sent it.
func (h *host) call(w http.ResponseWriter, r *http.Request, f *frame) {
	var req struct {
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := readJSON(r, &req); err != nil || (req.Arguments != nil && string(req.Arguments) != "null" && !isObject(req.Arguments)) {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "apphost: call: the arguments are not an object"})
		return
	}
	if h.cfg.Policy != nil {
		if err := h.cfg.Policy.Check(r.Context(), tool.Origin{Server: f.server, Tool: f.tool}.Alias(), req.Arguments); err != nil {
			writeJSON(w, http.StatusForbidden, map[string]string{"error": untrusted.Line(err.Error())})
			return
		}
	}
	var args any
	if req.Arguments != nil && string(req.Arguments) != "null" {
		args = req.Arguments
	}
	res, err := f.p.CallToolResult(r.Context(), f.tool, args)
	if err != nil {
		writeJSON(w, http.StatusBadGateway, map[string]string{"error": untrusted.Line(err.Error())})
		return
	}
	writeJSON(w, http.StatusOK, res)
}
