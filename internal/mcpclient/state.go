package mcpclient

import (
	"fmt"
	"time"
)

// State is where a [Provider]'s connection stands: mcptool.State, whose
// doc says each, in the same order (mcptool converts one to the other).
type State int

// The states of a provider's connection.
const (
	StateIdle         State = iota // not connected yet
	StateConnecting                // Connect is in progress
	StateReady                     // connected and serving
	StateReconnecting              // lost, and being rebuilt ([WithReconnect])
	StateFailed                    // Connect failed, or lost and not rebuilt
	StateClosed                    // Close was called
)

// String names s: "ready", "reconnecting"...
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

// Reconnect configures how a provider rebuilds a lost connection: a stdio
// server that exited is started again, an HTTP session the server forgot
// (404, [mcp.ErrSessionMissing]), whose stream broke, or which no longer
// answers after a call's request was cut is opened anew, and the tools are
// listed again. Attempts are spaced by a delay that starts at
// MinDelay and doubles up to MaxDelay. Zero in a field means its default; a
// negative MaxAttempts means no bound (attempts go on until Close), and a
// negative delay is refused at Connect.
type Reconnect struct {
	// MaxAttempts bounds the attempts for one loss (zero: 5).
	MaxAttempts int
	// MinDelay is the wait before the first attempt (zero: 200ms).
	MinDelay time.Duration
	// MaxDelay caps the wait between attempts (zero: 10s, or MinDelay if
	// that is longer). An attempt the server refused asking for a wait
	// (an HTTP Retry-After, see [HTTPError]) makes the next delay at
	// least that long, but never longer than MaxDelay.
	MaxDelay time.Duration
}

func (r Reconnect) withDefaults() Reconnect {
	if r.MaxAttempts == 0 {
		r.MaxAttempts = 5
	}
	if r.MinDelay == 0 {
		r.MinDelay = 200 * time.Millisecond
	}
	if r.MaxDelay < r.MinDelay {
		r.MaxDelay = max(10*time.Second, r.MinDelay)
	}
	return r
}
