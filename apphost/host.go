package apphost

import (
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/policy"
)

// Config is what a host of MCP Apps is made from. Servers is required; the
// zero value of every other field is its default.
type Config struct {
	// Servers returns the provider of the MCP server a page names, as
	// toolset.Toolset.Provider does: an app is read from it, and what the
	// app calls goes to it alone.
	Servers func(name string) (*mcptool.Provider, bool)
	// Policy, if set, judges every call an app makes, under the tool's
	// alias mcp__<server>__<tool> (so that a pattern on the tool's own name
	// holds), as it judges the model's; an approver it has is asked too.
	// Nil leaves the tools' visibility as the only rule.
	Policy *policy.Policy
	// Logger receives what the apps log (notifications/message), each call
	// an app makes, and each refusal; nil discards.
	Logger *slog.Logger
	// Hosts are the names, with or without a port, that a request's Host
	// may give: the names the page is served by. A page of another site
	// whose name was made to resolve to this machine (DNS rebinding) is
	// same-origin with itself, and its scripts would pass every other
	// check; its requests are refused (403). None serves loopback names
	// alone (localhost, 127.0.0.1, [::1]); set it to serve the apps by any
	// other name, and then only the names it lists.
	Hosts []string
	// MaxFrames bounds the apps open at once (default 64); opening one more
	// closes the one least recently used.
	MaxFrames int
}

// The bounds of what a page and its frames send.
const (
	defaultMaxFrames = 64
	maxBody          = 1 << 20 // one message, one open request
	maxInFlight      = 4       // calls and reads of one frame at once
)

//go:embed host.js
var hostScript []byte

// New returns the handler of a host of MCP Apps. Mount it under a prefix
// with [http.StripPrefix] (mux.Handle("/apps/", http.StripPrefix("/apps",
// apphost.New(cfg)))) and give the page the script it serves at
// host.js; see the package documentation for what the page calls.
//
// It serves:
//
//	GET  host.js       the script a page renders apps with (McpApps.render)
//	POST open          read a tool's app and open a frame for it
//	GET  frame/ID      the app's document, under its policy, in a sandbox
//	POST rpc/ID        one message of the frame, answered or refused
//	POST call/ID       the host's call of the frame's tool, for a page that has no result
//	POST close/ID      the frame is gone
//
// Anything a page posts must be JSON from the page's own origin: the frame,
// whose origin is opaque, and other sites get 403. The handler does not
// authenticate the page: put it behind what guards the rest of the site.
func New(c Config) http.Handler {
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.MaxFrames <= 0 {
		c.MaxFrames = defaultMaxFrames
	}
	return &host{cfg: c, frames: map[string]*frame{}}
}

type host struct {
	cfg Config

	mu     sync.Mutex
	frames map[string]*frame
	clock  uint64 // counts uses, to find the frame least recently used
}

func (h *host) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, "/")
	what, id, _ := strings.Cut(path, "/")
	switch {
	case !sdkfix.HostAllowed(r.Host, h.cfg.Hosts):
		writeJSON(w, http.StatusForbidden, map[string]string{"error": fmt.Sprintf("apphost: Host %q is not a name this host serves (Config.Hosts)", r.Host)})
	case what == "host.js" && id == "" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Write(hostScript)
	case what == "frame" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		h.serveFrame(w, r, id)
	case r.Method != http.MethodPost:
		http.Error(w, "not found", http.StatusNotFound)
	case !fromPage(r):
		// The frame's opaque origin, another site, or a form: none of them
		// may drive the host, whatever the app declared it may connect to.
		writeJSON(w, http.StatusForbidden, map[string]string{"error": "apphost: only the host page's own scripts may post here"})
	case what == "open" && id == "":
		h.open(w, r)
	case what == "rpc" || what == "call" || what == "close":
		f := h.frame(id)
		if f == nil {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": "apphost: no such app (closed, or replaced by newer ones)"})
			return
		}
		switch what {
		case "rpc":
			h.rpc(w, r, f)
		case "call":
			h.call(w, r, f)
		default:
			h.close(id)
			w.WriteHeader(http.StatusNoContent)
		}
	default:
		http.Error(w, "not found", http.StatusNotFound)
	}
}

// fromPage reports whether r was posted by a script of the page's own
// origin: JSON (which a cross-site form cannot send, and a cross-origin
// script cannot without a preflight this handler never answers), and, as
// browsers say, same-origin. A sandboxed frame's requests are cross-site,
// and its Origin is "null".
func fromPage(r *http.Request) bool {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return false
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return false
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || u.Host != r.Host {
			return false
		}
	}
	return true
}

// readJSON decodes the body of r, at most maxBody bytes, into v.
func readJSON(r *http.Request, v any) error {
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return err
	}
	if len(data) > maxBody {
		return fmt.Errorf("the request is over %d bytes", maxBody)
	}
	return json.Unmarshal(data, v)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		status, data = http.StatusInternalServerError, []byte(`{"error":"apphost: the answer could not be encoded"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(data)
}

// newID returns 128 random bits in hex: a frame's id, which is all a
// request needs to reach the frame's document.
func newID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// frame returns the open frame id, nil if there is none, and marks it
// used.
func (h *host) frame(id string) *frame {
	h.mu.Lock()
	defer h.mu.Unlock()
	f := h.frames[id]
	if f != nil {
		h.clock++
		f.used = h.clock
	}
	return f
}

// add opens f, closing the frame least recently used when MaxFrames are.
func (h *host) add(f *frame) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	for len(h.frames) >= h.cfg.MaxFrames {
		var oldest string
		for id, g := range h.frames {
			if oldest == "" || g.used < h.frames[oldest].used {
				oldest = id
			}
		}
		delete(h.frames, oldest)
	}
	id := newID()
	h.clock++
	f.used = h.clock
	h.frames[id] = f
	return id
}

func (h *host) close(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.frames, id)
}
