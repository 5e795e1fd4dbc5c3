package gateway

import (
	"context"
	"errors"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// subscriptions are the clients' subscriptions to resources, each a
// session's own: a 2025-11-25 session's, or that of the session go-sdk makes
// for one 2026-07-28 subscriptions/listen. go-sdk calls the unsubscribe
// handler for any session, one that never subscribed too, so a count of
// subscribers a URI would let one client end another's subscription: the
// gateway keeps who subscribed, asks the server to subscribe when the
// first session does, and to unsubscribe when the last leaves, by
// unsubscribing or by ending.
type subscriptions struct {
	mu      sync.Mutex
	byURI   map[string]*subscription
	watched map[*mcp.ServerSession]map[string]struct{} // a session's URIs, its end watched
	closed  bool                                       // the gateway is closing: no new watch
	watches sync.WaitGroup
}

// A subscription is the sessions subscribed to one URI.
type subscription struct {
	// mu is held across the request to the server, so that the server
	// hears subscribe and unsubscribe in the order the set changes.
	mu       sync.Mutex
	sessions map[*mcp.ServerSession]struct{}
	gone     bool // dropped from byURI: a new one is made
}

// errClosed refuses a subscription once the gateway is closing.
var errClosed = errors.New("gateway: closed")

// upstream sends resources/subscribe (on) or resources/unsubscribe to the
// resource's server.
type upstream func(ctx context.Context, on bool) error

// lock returns uri's subscription, locked, made if there is none.
func (s *subscriptions) lock(uri string) *subscription {
	for {
		s.mu.Lock()
		if s.byURI == nil {
			s.byURI = map[string]*subscription{}
		}
		sub := s.byURI[uri]
		if sub == nil {
			sub = &subscription{sessions: map[*mcp.ServerSession]struct{}{}}
			s.byURI[uri] = sub
		}
		s.mu.Unlock()
		sub.mu.Lock()
		if !sub.gone {
			return sub
		}
		sub.mu.Unlock()
	}
}

// unlock unlocks sub, dropping it when no session is left.
func (s *subscriptions) unlock(uri string, sub *subscription) {
	if len(sub.sessions) == 0 {
		s.mu.Lock()
		delete(s.byURI, uri)
		s.mu.Unlock()
		sub.gone = true
	}
	sub.mu.Unlock()
}

// add subscribes ss to uri; the first session makes send subscribe. watch
// is called once for a session new to the set, to unsubscribe it when it
// ends.
func (s *subscriptions) add(ctx context.Context, ss *mcp.ServerSession, uri string, send upstream, watch func(*mcp.ServerSession)) error {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return errClosed
	}
	sub := s.lock(uri)
	defer s.unlock(uri, sub)
	if _, ok := sub.sessions[ss]; ok {
		return nil
	}
	if len(sub.sessions) == 0 {
		if err := send(ctx, true); err != nil {
			return err
		}
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errClosed
	}
	if s.watched == nil {
		s.watched = map[*mcp.ServerSession]map[string]struct{}{}
	}
	uris, known := s.watched[ss]
	if !known {
		uris = map[string]struct{}{}
		s.watched[ss] = uris
		s.watches.Add(1)
	}
	uris[uri] = struct{}{}
	s.mu.Unlock()
	sub.sessions[ss] = struct{}{}
	if !known {
		watch(ss)
	}
	return nil
}

// remove unsubscribes ss from uri, if it is subscribed; the last session
// makes send unsubscribe.
func (s *subscriptions) remove(ctx context.Context, ss *mcp.ServerSession, uri string, send upstream) error {
	s.mu.Lock()
	_, ok := s.watched[ss][uri]
	delete(s.watched[ss], uri)
	s.mu.Unlock()
	if !ok {
		return nil // not ss's: another's stays
	}
	sub := s.lock(uri)
	defer s.unlock(uri, sub)
	if _, ok := sub.sessions[ss]; !ok {
		return nil
	}
	delete(sub.sessions, ss)
	if len(sub.sessions) > 0 {
		return nil
	}
	return send(ctx, false)
}

// ended removes every subscription of ss, a session that ended, sending
// unsubscribe for each URI it was the last subscriber of (send gives the
// sender of a URI, nil for one no longer served).
func (s *subscriptions) ended(ctx context.Context, ss *mcp.ServerSession, send func(uri string) upstream) []error {
	s.mu.Lock()
	uris := s.watched[ss]
	delete(s.watched, ss)
	s.mu.Unlock()
	defer s.watches.Done()
	var errs []error
	for uri := range uris {
		sub := s.lock(uri)
		delete(sub.sessions, ss)
		if len(sub.sessions) == 0 {
			if up := send(uri); up != nil {
				if err := up(ctx, false); err != nil {
					errs = append(errs, err)
				}
			}
		}
		s.unlock(uri, sub)
	}
	return errs
}

// close closes every session whose end is watched, and waits for the
// watches to end; no session is watched after it.
func (s *subscriptions) close() {
	s.mu.Lock()
	s.closed = true
	sessions := make([]*mcp.ServerSession, 0, len(s.watched))
	for ss := range s.watched {
		sessions = append(sessions, ss)
	}
	s.mu.Unlock()
	for _, ss := range sessions {
		_ = ss.Close() // its watch ends with it
	}
	s.watches.Wait()
}
