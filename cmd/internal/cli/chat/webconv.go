package chat

import (
	"encoding/json"
	"net/http"
	"regexp"
	"sync"

	"github.com/mcpbridge/mcpbridge/llm"
)

// Each page of mcpbridge web (each tab, and /app) has a conversation of its
// own, named by an id the page makes and keeps for the tab
// (sessionStorage): what the model was told and answered, and what the
// page showed of each turn, which it shows again when it is reloaded. New
// conversation is a new id. One turn runs at a time, whichever page asks.

// Bounds of the conversations kept.
const (
	maxConversations = 32      // the least recently used goes past this
	maxTranscript    = 1 << 20 // bytes of what a conversation's page showed, its oldest events dropped past it
	maxEventResult   = 1 << 18 // an event of more bytes is kept without the result it gives an app
)

// conversationID is what a page may name its conversation by.
var conversationID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// A conversation is one page's: the model's messages, and the events the
// page was sent (the person's messages, the calls, their results, the
// answers), which it replays when it is reloaded.
type conversation struct {
	history []llm.Message
	events  []json.RawMessage
	bytes   int
	used    uint64
}

// conversations are the pages' conversations by id, at most
// maxConversations.
type conversations struct {
	mu    sync.Mutex
	byID  map[string]*conversation
	clock uint64
}

// get returns the conversation id, made if there is none, and marks it
// used; the one least recently used goes when there are too many.
func (cs *conversations) get(id string) *conversation {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.byID == nil {
		cs.byID = map[string]*conversation{}
	}
	c := cs.byID[id]
	if c == nil {
		for len(cs.byID) >= maxConversations {
			var oldest string
			for k, o := range cs.byID {
				if oldest == "" || o.used < cs.byID[oldest].used {
					oldest = k
				}
			}
			delete(cs.byID, oldest)
		}
		c = &conversation{}
		cs.byID[id] = c
	}
	cs.clock++
	c.used = cs.clock
	return c
}

// messages returns the model's messages of c.
func (cs *conversations) messages(c *conversation) []llm.Message {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return c.history
}

// setMessages keeps the model's messages of c after a turn.
func (cs *conversations) setMessages(c *conversation, m []llm.Message) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c.history = m
}

// record keeps ev among what c's page showed, within maxTranscript.
func (cs *conversations) record(c *conversation, ev webEvent) {
	data, err := json.Marshal(ev)
	if err == nil && len(data) > maxEventResult && ev.Result != nil {
		ev.Result = nil
		data, err = json.Marshal(ev)
	}
	if err != nil || len(data) > maxTranscript {
		return
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c.events = append(c.events, data)
	c.bytes += len(data)
	for c.bytes > maxTranscript {
		c.bytes -= len(c.events[0])
		c.events = c.events[1:]
	}
}

// transcript answers GET /api/conversation?id=ID with what the page of
// the conversation was shown, {"events": [...]}, none for an id not
// known.
func (w *webChat) transcript(rw http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	if !conversationID.MatchString(id) {
		writeError(rw, http.StatusBadRequest, "mcpbridge web: a conversation's id is 1 to 64 letters, digits, - and _")
		return
	}
	out := struct {
		Events []json.RawMessage `json:"events"`
	}{Events: []json.RawMessage{}}
	w.convs.mu.Lock()
	if c := w.convs.byID[id]; c != nil {
		out.Events = append(out.Events, c.events...)
	}
	w.convs.mu.Unlock()
	rw.Header().Set("Content-Type", "application/json")
	rw.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(rw).Encode(out)
}
