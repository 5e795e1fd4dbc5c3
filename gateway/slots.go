package gateway

import (
	"container/list"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// slots counts the requests being served, in all and by client, within
// [Limits.Calls] and CallsPerClient (0 for none), and queues those past a
// bound, up to CallQueue of each client, in the order they came. A
// server's requests in flight are slots too ([Limits.ServerCalls]),
// shared fairly: a client may take no more than its share of total. With a
// shared store, a client's requests are counted there too, across the
// replicas (store.go): a request given a slot here waits, holding it,
// until the store has room for it; while the store does not answer, a
// client's bound here is this replica's share of CallsPerClient.
type slots struct {
	total, perClient, queue int
	fair                    bool   // a client takes at most total/clients
	shared                  *store // nil without Options.Store

	onWait func() // told of each request that waits, for tests

	mu      sync.Mutex
	busy    int
	clients map[string]*clientSlots
	waiting list.List // of *waiter, first come first
}

type clientSlots struct{ busy, waiting int }

type waiter struct {
	client  string
	ready   chan struct{} // closed once the slot is the waiter's
	granted bool
}

// fits reports whether a request of c may start now; b.mu is held.
func (b *slots) fits(c *clientSlots) bool {
	per := b.clientBound()
	return (b.total == 0 || b.busy < b.total) && (per == 0 || c.busy < per) &&
		(!b.fair || b.total == 0 || c.busy < max(1, b.total/len(b.clients)))
}

// clientBound is a client's bound on this replica: CallsPerClient, or its
// share while the shared store does not answer.
func (b *slots) clientBound() int {
	if b.shared != nil && !b.shared.ready() {
		return b.shared.share(b.perClient)
	}
	return b.perClient
}

func (b *slots) client(name string) *clientSlots {
	if b.clients == nil {
		b.clients = map[string]*clientSlots{}
	}
	c := b.clients[name]
	if c == nil {
		c = &clientSlots{}
		b.clients[name] = c
	}
	return c
}

// enter takes a slot for a request of client, waiting in its queue while
// every slot it may take is busy, until ctx or stop ends, and then for
// room in the shared store; a request past a full queue is refused at once
// with [CodeRateLimited], naming the bounds. A nil error comes with the
// function that gives the slot back.
func (b *slots) enter(ctx context.Context, client string, stop <-chan struct{}) (func(), error) {
	if err := b.local(ctx, client, stop); err != nil {
		return nil, err
	}
	if b.shared == nil || b.perClient == 0 {
		return func() { b.leave(client) }, nil
	}
	lease := b.shared.member()
	if err := b.acquire(ctx, client, lease, stop); err != nil {
		b.leave(client)
		return nil, err
	}
	return func() {
		b.shared.release(callLeases, client, lease)
		b.leave(client)
	}, nil
}

// storeWait bounds the pause between two asks of the shared store for
// room for a call: the store cannot say when a slot of another replica's
// is given back.
const storeWait = 50 * time.Millisecond

// acquire takes the lease of a request of client in the shared store,
// waiting while the client's requests across the replicas are at its
// bound, until ctx or stop ends. While the store does not answer the slot
// held here is the request's share: it goes ahead, its lease held to be
// counted once the store answers.
func (b *slots) acquire(ctx context.Context, client, lease string, stop <-chan struct{}) error {
	pause := time.Millisecond
	for {
		_, ok, err := b.shared.acquire(callLeases, client, lease, b.perClient)
		if err != nil {
			b.shared.hold(callLeases, client, lease)
			return nil
		}
		if ok {
			return nil
		}
		t := time.NewTimer(pause)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-stop:
			t.Stop()
			return ErrDraining
		}
		pause = min(2*pause, storeWait)
	}
}

// local takes a slot of this replica's for a request of client.
func (b *slots) local(ctx context.Context, client string, stop <-chan struct{}) error {
	b.mu.Lock()
	c := b.client(client)
	if b.fits(c) && c.waiting == 0 && !b.ahead(client) {
		c.busy++
		b.busy++
		b.mu.Unlock()
		return nil
	}
	if b.queue > 0 && c.waiting >= b.queue {
		err := b.refusal(client, c)
		b.drop(client, c)
		b.mu.Unlock()
		return err
	}
	w := &waiter{client: client, ready: make(chan struct{})}
	e := b.waiting.PushBack(w)
	c.waiting++
	if b.onWait != nil {
		b.onWait()
	}
	b.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
	case <-stop:
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if w.granted {
		// Given a slot as it gave up: passed on.
		b.release(client)
	} else {
		b.waiting.Remove(e)
		c.waiting--
		b.drop(client, c)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return ErrDraining
}

// ahead reports whether a request of another client waits for a slot that
// a request of client would take: the gateway's, when it is the bound.
func (b *slots) ahead(client string) bool {
	for e := b.waiting.Front(); e != nil; e = e.Next() {
		if w := e.Value.(*waiter); w.client != client && b.fits(b.clients[w.client]) {
			return true
		}
	}
	return false
}

// leave gives back a slot of client's, to the first request waiting that
// may take it.
func (b *slots) leave(client string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.release(client)
}

func (b *slots) release(client string) {
	c := b.clients[client]
	c.busy--
	b.busy--
	b.drop(client, c)
	for e := b.waiting.Front(); e != nil; {
		next := e.Next()
		w := e.Value.(*waiter)
		if wc := b.clients[w.client]; b.fits(wc) {
			b.waiting.Remove(e)
			wc.waiting--
			wc.busy++
			b.busy++
			w.granted = true
			close(w.ready)
		}
		if b.total > 0 && b.busy >= b.total {
			return
		}
		e = next
	}
}

// drop forgets a client with nothing busy or waiting.
func (b *slots) drop(name string, c *clientSlots) {
	if c.busy == 0 && c.waiting == 0 {
		delete(b.clients, name)
	}
}

// refusal is the error of a request of client past its queue; b.mu is held.
func (b *slots) refusal(client string, c *clientSlots) error {
	bound, limit := "Calls", b.total
	if per := b.clientBound(); per > 0 && c.busy >= per {
		bound, limit = "CallsPerClient", per
	}
	data, _ := json.Marshal(map[string]any{"bound": bound, "limit": limit})
	msg := fmt.Sprintf("%d requests being served for %s, the bound (CallsPerClient, %d), and %d waiting, the most its queue holds (CallQueue, %d): retry once one is answered",
		c.busy, who(client), limit, c.waiting, b.queue)
	if bound == "Calls" {
		msg = fmt.Sprintf("%d requests being served by the gateway, the bound (Calls, %d), and %d waiting for %s, the most its queue holds (CallQueue, %d): retry once one is answered",
			b.busy, limit, c.waiting, who(client), b.queue)
	}
	return &jsonrpc.Error{Code: CodeRateLimited, Message: msg, Data: data}
}
