package mcptool

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// State is where a [Provider]'s connection stands.
type State int

// The states of a provider's connection.
const (
	// StateIdle: not connected yet.
	StateIdle State = iota
	// StateConnecting: Connect is in progress.
	StateConnecting
	// StateReady: connected and serving.
	StateReady
	// StateReconnecting: the connection was lost and is being rebuilt
	// ([WithReconnect]); calls fail meanwhile with a retryable
	// [TransportError] that says so.
	StateReconnecting
	// StateFailed: Connect failed, or the connection was lost and not
	// rebuilt. The error says why.
	StateFailed
	// StateClosed: Close was called.
	StateClosed
)

func (s State) String() string {
	switch s {
	case StateIdle:
		return "idle"
	case StateConnecting:
		return "connecting"
	case StateReady:
		return "ready"
	case StateReconnecting:
		return "reconnecting"
	case StateFailed:
		return "failed"
	case StateClosed:
		return "closed"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// State returns where the provider's connection stands and, when it failed
// or is being rebuilt, why.
func (p *Provider) State() (State, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.state, p.stateErr
}

// setState reports the change to the WithStateChange callback before
// publishing it, so that what the callback records is already current when
// a call that waited for the new state goes on; notifyMu keeps callbacks and
// changes in one order.
func (p *Provider) setState(s State, err error) {
	p.notifyMu.Lock()
	defer p.notifyMu.Unlock()
	if fn := p.cfg.onState; fn != nil {
		fn(s, err)
	}
	p.mu.Lock()
	p.state, p.stateErr = s, err
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
}

// Reconnect configures how a provider rebuilds a lost connection: a stdio
// server that exited is started again, an HTTP session the server forgot
// (404, [mcp.ErrSessionMissing]), whose stream broke, or which no longer
// answers after a call's request was cut is opened anew, and the tools are
// listed again. Attempts are spaced by a delay that starts at
// MinDelay and doubles up to MaxDelay.
type Reconnect struct {
	// MaxAttempts bounds the attempts for one loss (default 5).
	MaxAttempts int
	// MinDelay is the wait before the first attempt (default 200ms).
	MinDelay time.Duration
	// MaxDelay caps the wait between attempts (default 10s).
	MaxDelay time.Duration
}

func (r Reconnect) withDefaults() Reconnect {
	if r.MaxAttempts <= 0 {
		r.MaxAttempts = 5
	}
	if r.MinDelay <= 0 {
		r.MinDelay = 200 * time.Millisecond
	}
	if r.MaxDelay < r.MinDelay {
		r.MaxDelay = max(10*time.Second, r.MinDelay)
	}
	return r
}

// reconnects reports whether a lost connection will be rebuilt: it was asked
// for, and the provider can make a new transport (a given one is used once).
func (p *Provider) reconnects() bool { return p.cfg.reconnect != nil && p.custom == nil }

// supervise watches the connection until the provider closes, rebuilding
// it when it is lost and the provider reconnects.
func (p *Provider) supervise(life context.Context, sess *session) {
	defer p.bg.Done()
	for {
		select {
		case <-life.Done():
			return
		case <-sess.done:
		}
		why := explain(sess.conn, errors.New("connection closed"))
		p.cfg.logger.Warn("lost the connection to the MCP server", "server", p.name, "error", why)
		if !p.reconnects() {
			p.setState(StateFailed, why)
			return
		}
		p.setState(StateReconnecting, why)
		next, err := p.rebuild(life, why)
		if err != nil {
			if life.Err() == nil {
				p.setState(StateFailed, err)
			}
			return
		}
		p.mu.Lock()
		if life.Err() != nil {
			p.mu.Unlock()
			next.close()
			return
		}
		p.sess = next
		p.mu.Unlock()
		sess.close() // reaps the old process
		p.cfg.logger.Info("reconnected to the MCP server", "server", p.name)
		p.setState(StateReady, nil)
		if !sameTools(sess.catalog(), next.catalog()) {
			p.toolsChanged()
		}
		sess = next
	}
}

// rebuild makes a new session, with bounded attempts and backoff.
func (p *Provider) rebuild(life context.Context, why error) (*session, error) {
	r := p.cfg.reconnect.withDefaults()
	delay := r.MinDelay
	var last error
	for attempt := 1; attempt <= r.MaxAttempts; attempt++ {
		t := time.NewTimer(delay)
		select {
		case <-life.Done():
			t.Stop()
			return nil, life.Err()
		case <-t.C:
		}
		sess, err := p.connect(life)
		if err == nil {
			return sess, nil
		}
		last = err
		p.cfg.logger.Debug("reconnect attempt failed", "server", p.name, "attempt", attempt, "error", err)
		delay = min(2*delay, r.MaxDelay)
	}
	return nil, fmt.Errorf("gave up after %d attempts to reconnect (lost: %v): %w", r.MaxAttempts, why, last)
}

// waitReady waits until the provider is ready again and returns the new
// session, or fails when it gives up, closes, or ctx ends.
func (p *Provider) waitReady(ctx context.Context) (*session, error) {
	for {
		p.mu.Lock()
		s, state, why, changed := p.sess, p.state, p.stateErr, p.changed
		p.mu.Unlock()
		switch state {
		case StateReady:
			if s != nil {
				select {
				case <-s.done:
				default:
					return s, nil
				}
			}
		case StateFailed, StateClosed, StateIdle:
			if why == nil {
				why = ErrNotConnected
			}
			return nil, fmt.Errorf("the connection was lost and not rebuilt: %w", why)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-changed:
		}
	}
}
