package gateway

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrDraining is the error of a request that arrives after
// [Gateway.Shutdown] began: the gateway finishes the calls it has and takes
// no new one, so a client behind a load balancer sends it to another
// replica.
var ErrDraining = errors.New("gateway: shutting down, not taking new requests")

// drain counts the requests in flight, and refuses new ones once draining.
type drain struct {
	mu       sync.Mutex
	draining bool
	inFlight int
	idle     chan struct{} // closed when draining and nothing is in flight
}

// enter reports whether a request may start, and counts it if so.
func (d *drain) enter() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.draining {
		return false
	}
	d.inFlight++
	return true
}

func (d *drain) leave() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.inFlight--
	if d.draining && d.inFlight == 0 {
		close(d.idle)
	}
}

// start begins draining and returns a channel closed once nothing is in
// flight.
func (d *drain) start() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.draining {
		d.draining = true
		d.idle = make(chan struct{})
		if d.inFlight == 0 {
			close(d.idle)
		}
	}
	return d.idle
}

func (d *drain) isDraining() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.draining
}

// Shutdown drains the gateway: from now on every new request is refused
// with [ErrDraining] and /readyz answers 503, while the requests in flight
// go on; it returns once they are all done, or fails when ctx ends or the
// drain timeout ([Options] DrainTimeout) passes first, saying how many were
// left. It does not close the servers: call [Gateway.Close] after it,
// which ends whatever is left.
func (g *Gateway) Shutdown(ctx context.Context) error {
	idle := g.drain.start()
	// Said once new requests are refused, so that what reads the log
	// knows they are.
	g.log.Info("gateway: draining", "in_flight", g.inFlight())
	if d := g.o.drainTimeout(); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("gateway: drain: %d requests still in flight: %w", g.inFlight(), ctx.Err())
	}
}

// inFlight is how many requests are being served.
func (g *Gateway) inFlight() int {
	g.drain.mu.Lock()
	defer g.drain.mu.Unlock()
	return g.drain.inFlight
}
