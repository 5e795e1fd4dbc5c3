package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionTable counts the sessions open (protocol 2025-11-25 and older), in
// all and by client, within [Limits.Sessions] and SessionsPerClient (0 for
// none), and knows the requests in flight on each, so that a session's end
// cancels them. With a shared store a client's sessions are counted there,
// across the replicas (store.go); the sessions in all are this replica's.
// go-sdk closes a session idle for [Limits.SessionIdle] itself (its
// SessionTimeout); each session's end, whatever ends it, is learnt by a
// goroutine that waits for it.
type sessionTable struct {
	total, perClient int
	shared           *store // nil without Options.Store

	mu       sync.Mutex
	open     map[string]*session // by session id
	byClient map[string]int
	ended    sync.WaitGroup // the goroutines waiting for each session's end
}

type session struct {
	ss     *mcp.ServerSession
	client string
	entry  string         // the client's entry of Options.Clients, whose policy holds
	calls  map[string]int // the ids of the requests in flight, as written, with the POSTs carrying each
	lease  string         // its lease in the shared store, if any
}

// opened counts the session ss of client, which is initializing, or
// refuses it with [CodeRateLimited] when it would pass a bound: go-sdk
// then closes it, as it closes any session whose initialize failed. A
// session counted already (a second initialize, which go-sdk refuses) is
// taken as it is.
func (t *sessionTable) opened(ss *mcp.ServerSession, client, entry string) error {
	id := ss.ID()
	if id == "" {
		return nil // a stateless request's, which ends with it
	}
	t.mu.Lock()
	_, known := t.open[id]
	t.mu.Unlock()
	if known {
		return nil
	}
	perClient, lease := t.perClient, ""
	if t.shared != nil && perClient > 0 {
		lease = t.shared.member()
		held, ok, err := t.shared.acquire(sessionLeases, client, lease, perClient)
		switch {
		case err != nil:
			perClient = t.shared.share(perClient) // the store is down
		case !ok:
			return sessionRefusal("SessionsPerClient", perClient, fmt.Sprintf("%d sessions open for %s across the replicas", held, who(client)))
		default:
			perClient = 0 // counted in the store
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var err error
	switch {
	case perClient > 0 && t.byClient[client] >= perClient:
		err = sessionRefusal("SessionsPerClient", perClient, fmt.Sprintf("%d sessions open for %s", t.byClient[client], who(client)))
	case t.total > 0 && len(t.open) >= t.total:
		err = sessionRefusal("Sessions", t.total, fmt.Sprintf("%d sessions open on the gateway", len(t.open)))
	}
	if err != nil {
		if lease != "" {
			t.shared.release(sessionLeases, client, lease)
		}
		return err
	}
	if lease != "" {
		t.shared.hold(sessionLeases, client, lease) // the store's count, once it answers
	}
	if t.open == nil {
		t.open, t.byClient = map[string]*session{}, map[string]int{}
	}
	t.open[id] = &session{ss: ss, client: client, entry: entry, calls: map[string]int{}, lease: lease}
	t.byClient[client]++
	t.ended.Go(func() {
		_ = ss.Wait()
		if lease != "" {
			t.shared.release(sessionLeases, client, lease)
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		delete(t.open, id)
		if t.byClient[client]--; t.byClient[client] == 0 {
			delete(t.byClient, client)
		}
	})
	return nil
}

// sessionRefusal is the error of an initialize past bound, whose limit is
// limit, open saying how many sessions are.
func sessionRefusal(bound string, limit int, open string) error {
	data, _ := json.Marshal(map[string]any{"bound": bound, "limit": limit})
	msg := fmt.Sprintf("%s, the bound (SessionsPerClient, %d): close one (DELETE) or let one expire before opening another", open, limit)
	if bound == "Sessions" {
		msg = fmt.Sprintf("%s, the bound (Sessions, %d): retry once one is closed or expires", open, limit)
	}
	return &jsonrpc.Error{Code: CodeRateLimited, Message: msg, Data: data}
}

// of is the entry of [Options] Clients of the client of session ss, whose
// policy says what the gateway sends the session outside any call
// (notices.go): a session of protocol 2025-11-25, counted at its
// initialize, or the one client over stdio, which no token names. A
// stateless request's session is no one's.
func (t *sessionTable) of(ss *mcp.ServerSession) (string, bool) {
	if stateless(ss) {
		return "", false
	}
	id := ss.ID()
	if id == "" {
		return "", true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := t.open[id]; s != nil && s.ss == ss {
		return s.entry, true
	}
	return "", false
}

// track notes the requests of calls in flight on session id, if it is
// open, until the function it returns is called.
func (t *sessionTable) track(id string, calls []call) func() {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.open[id]
	if s == nil || len(calls) == 0 {
		return func() {}
	}
	for _, c := range calls {
		s.calls[string(c.id)]++
	}
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		for _, c := range calls {
			if s.calls[string(c.id)]--; s.calls[string(c.id)] <= 0 {
				delete(s.calls, string(c.id))
			}
		}
	}
}

// inFlight are the ids of the requests in flight on session id.
func (t *sessionTable) inFlight(id string) []json.RawMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	var ids []json.RawMessage
	if s := t.open[id]; s != nil {
		for k := range s.calls {
			ids = append(ids, json.RawMessage(k))
		}
	}
	return ids
}

// closeAll closes every session still open and waits for their ends: a
// session's Close waits for its requests in flight, which fail once the
// servers are closed.
func (t *sessionTable) closeAll() {
	t.mu.Lock()
	var open []*mcp.ServerSession
	for _, s := range t.open {
		open = append(open, s.ss)
	}
	t.mu.Unlock()
	for _, ss := range open {
		_ = ss.Close()
	}
	t.ended.Wait()
}

// cancelCalls cancels the requests ids in flight on the session of r's
// Mcp-Session-Id, as the client would: a notifications/cancelled for each,
// handed to go-sdk's handler h for that session under r's credentials
// (go-sdk refuses another client's). go-sdk cancels a request's context on
// that notification alone: neither a session's client going away from the
// POST that carries a request, nor the session's end (a DELETE, which
// waits for them), cancels it (sdkfix's doc). The servers are told in turn,
// as for a client's own cancellation.
func cancelCalls(r *http.Request, h http.Handler, ids []json.RawMessage, reason string) {
	for _, id := range ids {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":%q}}`, id, reason)
		req, err := http.NewRequestWithContext(context.WithoutCancel(r.Context()), http.MethodPost, r.URL.String(), strings.NewReader(body))
		if err != nil {
			continue
		}
		req.Host, req.RemoteAddr = r.Host, r.RemoteAddr
		for _, k := range []string{"Mcp-Session-Id", "Mcp-Protocol-Version", "Authorization"} {
			if v := r.Header.Get(k); v != "" {
				req.Header.Set(k, v)
			}
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		h.ServeHTTP(discard{}, req)
	}
}

// discard is a response nobody reads.
type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) WriteHeader(int)             {}
