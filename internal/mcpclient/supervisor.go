package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/plural"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A supervisor keeps a provider's connection: it makes it (start), watches
// it, rebuilds it when it is lost (if reconnect is set), lists the tools
// again when the server says they changed, and reports each change of
// state. Its two goroutines, the watcher and the refresher, live from a
// start that succeeds to close.
type supervisor struct {
	name           string
	logger         *slog.Logger
	tel            *clientTelemetry
	dial           func(context.Context) (*session, error) // a new session, its tools listed
	refresh        func(context.Context) error             // lists the tools again
	reconnect      *Reconnect                              // nil: a lost connection stays lost
	onState        func(State, error)
	onToolsChanged func()

	mu         sync.Mutex
	sess       *session
	connecting chan struct{}      // closed when a start in progress returns
	abort      context.CancelFunc // ends a start in progress
	state      State
	stateErr   error
	changed    chan struct{}      // closed and replaced at every state change
	stop       context.CancelFunc // ends the background work
	refreshes  chan struct{}      // list_changed notifications, coalesced

	notifyMu sync.Mutex     // serializes the state and tools callbacks
	bg       sync.WaitGroup // the watcher and the refresher
}

// start makes the connection, unless there is one; close during it aborts
// it.
func (v *supervisor) start(ctx context.Context) error {
	v.mu.Lock()
	if v.sess != nil || v.connecting != nil {
		v.mu.Unlock()
		return fmt.Errorf("server %q: connect: %w", v.name, ErrConnected)
	}
	ctx, cancel := context.WithCancel(ctx)
	connecting := make(chan struct{})
	v.connecting, v.abort = connecting, cancel
	v.mu.Unlock()
	v.setState(StateConnecting, nil)

	sess, err := v.dial(ctx)

	v.mu.Lock()
	aborted := v.abort == nil // close ran meanwhile
	v.connecting, v.abort = nil, nil
	if err == nil && !aborted {
		var life context.Context
		life, v.stop = context.WithCancel(context.Background())
		v.sess = sess
		v.refreshes = make(chan struct{}, 1)
		v.bg.Add(2)
		go v.watch(life, sess)
		go v.refresher(life, v.refreshes)
	}
	v.mu.Unlock()
	close(connecting)
	cancel()
	switch {
	case err == nil && aborted:
		sess.close()
		err = fmt.Errorf("server %q: connect: closed while connecting", v.name)
		v.setState(StateClosed, nil)
	case err != nil:
		v.setState(StateFailed, err)
	default:
		v.setState(StateReady, nil)
	}
	return err
}

// close ends the connection, and a start in progress, and waits for the
// background work to end.
func (v *supervisor) close() {
	v.mu.Lock()
	sess, connecting, abort, stop := v.sess, v.connecting, v.abort, v.stop
	v.sess, v.abort, v.stop = nil, nil, nil
	v.mu.Unlock()
	if abort != nil {
		abort()
		<-connecting
	}
	if stop != nil {
		stop()
	}
	if sess != nil {
		sess.clock.stop(false)
		sess.close()
	}
	// The watcher may have swapped in a new session before it saw the
	// stop; it closes that one itself.
	v.bg.Wait()
	if sess != nil {
		v.logger.Info("closed MCP server", "server", v.name)
		v.setState(StateClosed, nil)
	}
}

// current returns the session, live or not, or nil.
func (v *supervisor) current() *session {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.sess
}

// live returns the current session, or an error naming op: not connected,
// or the connection lost (and being rebuilt, if the provider reconnects).
func (v *supervisor) live(op operation) (*session, error) {
	v.mu.Lock()
	s, state, why := v.sess, v.state, v.stateErr
	v.mu.Unlock()
	if s == nil {
		return nil, &TransportError{Server: v.name, Op: op.String(), Err: ErrNotConnected}
	}
	if !s.ended() {
		return s, nil
	}
	if why == nil {
		why = explain(s.conn, mcp.ErrConnectionClosed)
	}
	if state == StateReconnecting {
		return nil, &TransportError{Server: v.name, Op: op.String(), retryable: true, Err: fmt.Errorf("the connection was lost and is being rebuilt: %w", why)}
	}
	return nil, &TransportError{Server: v.name, Op: op.String(), retryable: true, Err: fmt.Errorf("the connection was lost: %w", why)}
}

func (v *supervisor) get() (State, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.state, v.stateErr
}

// setState reports the change to the WithStateChange callback before
// publishing it, so that what the callback records is already current when
// a call that waited for the new state goes on; notifyMu keeps callbacks and
// changes in one order.
func (v *supervisor) setState(s State, err error) {
	v.notifyMu.Lock()
	defer v.notifyMu.Unlock()
	if fn := v.onState; fn != nil {
		fn(s, err)
	}
	v.mu.Lock()
	v.state, v.stateErr = s, err
	close(v.changed)
	v.changed = make(chan struct{})
	v.mu.Unlock()
}

// watch watches the connection until the provider closes, rebuilding it
// when it is lost and the provider reconnects.
func (v *supervisor) watch(life context.Context, sess *session) {
	defer v.bg.Done()
	for {
		select {
		case <-life.Done():
			return
		case <-sess.done:
		}
		// Close stops the watcher before it ends the session, but a watcher
		// slow to wake (a loaded machine) finds both, and a select takes
		// either: a session that ended as the provider closed was not lost.
		if life.Err() != nil {
			return
		}
		why := explain(sess.conn, errors.New("connection closed"))
		sess.clock.stop(true)
		v.logger.Warn("lost the connection to the MCP server", "server", v.name, "error", why)
		if v.reconnect == nil {
			v.setState(StateFailed, why)
			return
		}
		v.setState(StateReconnecting, why)
		rctx, rebuilt := v.tel.rebuilding(life)
		next, err := v.rebuild(rctx, why)
		rebuilt(err)
		if err != nil {
			if life.Err() == nil {
				v.setState(StateFailed, err)
			}
			return
		}
		v.mu.Lock()
		if life.Err() != nil {
			v.mu.Unlock()
			next.close()
			return
		}
		v.sess = next
		v.mu.Unlock()
		sess.close() // reaps the old process
		v.logger.Info("reconnected to the MCP server", "server", v.name)
		v.setState(StateReady, nil)
		if !sameTools(sess.catalog(), next.catalog()) {
			v.toolsChanged()
		}
		sess = next
	}
}

// rebuild makes a new session, with bounded attempts and backoff. The
// wait a server asked for (an HTTP Retry-After, of a 503 while it restarts,
// say) lengthens the next delay, but never past MaxDelay.
func (v *supervisor) rebuild(life context.Context, why error) (*session, error) {
	r := v.reconnect
	delay := r.MinDelay
	var last error
	for attempt := 1; r.MaxAttempts < 0 || attempt <= r.MaxAttempts; attempt++ {
		t := time.NewTimer(delay)
		select {
		case <-life.Done():
			t.Stop()
			return nil, life.Err()
		case <-t.C:
		}
		if life.Err() != nil { // the close came as the delay ended
			return nil, life.Err()
		}
		sess, err := v.dial(life)
		if err == nil {
			return sess, nil
		}
		last = err
		v.logger.DebugContext(life, "reconnect attempt failed", "server", v.name, "attempt", attempt, "error", err)
		delay = min(max(2*delay, retryAfter(err)), r.MaxDelay)
	}
	return nil, fmt.Errorf("gave up after %s to reconnect (lost: %v): %w", plural.Count(r.MaxAttempts, "attempt", "attempts"), why, last)
}

// waitReady waits until the connection is ready again and returns the new
// session, or fails when the supervisor gives up, closes, or ctx ends.
func (v *supervisor) waitReady(ctx context.Context) (*session, error) {
	for {
		v.mu.Lock()
		s, state, why, changed := v.sess, v.state, v.stateErr, v.changed
		v.mu.Unlock()
		switch state {
		case StateReady:
			if s != nil && !s.ended() {
				return s, nil
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

// refreshDebounce is how long the refresher waits after a list_changed
// notification for more before listing again: servers often send a burst.
const refreshDebounce = 100 * time.Millisecond

// listChanged notes a notifications/tools/list_changed; the refresher lists
// again once the burst is over.
func (v *supervisor) listChanged() {
	v.mu.Lock()
	ch := v.refreshes
	v.mu.Unlock()
	if ch == nil {
		return
	}
	select {
	case ch <- struct{}{}:
	default: // a refresh is already due
	}
}

// refresher runs the refreshes list_changed asks for, one at a time, until
// the provider closes.
func (v *supervisor) refresher(life context.Context, requests <-chan struct{}) {
	defer v.bg.Done()
	for {
		select {
		case <-life.Done():
			return
		case <-requests:
		}
		t := time.NewTimer(refreshDebounce)
		select {
		case <-life.Done():
			t.Stop()
			return
		case <-t.C:
		}
		select { // notifications that came during the wait are covered
		case <-requests:
		default:
		}
		if err := v.refresh(life); err != nil && life.Err() == nil {
			v.logger.Warn("could not list the tools again after list_changed", "server", v.name, "error", err)
		}
	}
}

// toolsChanged reports that the tools offered changed.
func (v *supervisor) toolsChanged() {
	v.logger.Info("the server's tools changed", "server", v.name)
	if fn := v.onToolsChanged; fn != nil {
		v.notifyMu.Lock()
		defer v.notifyMu.Unlock()
		fn()
	}
}
