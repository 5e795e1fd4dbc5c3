package gateway

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
)

// What a server says on its own (a log message, a call's progress, a
// resource's update) is handed to the gateway on the one goroutine that
// handles everything the server sends, and go-sdk queues behind it,
// without bound, whatever comes while it works. So that goroutine only
// decides whom a notice is for (notices.go) and queues it, here, for a
// goroutine of the server's to pass on: each server's queue holds at most
// [Limits].ServerQueueBytes, and a notice that comes while it is full is
// dropped, and counted in the gateway's log. Passing a notice on never
// waits on a client either (lanes.go).

// A passOn is the queue of one server's notices the gateway has yet to
// pass on, and the goroutine that passes them on, in order.
type passOn struct {
	server string
	bound  int
	log    *slog.Logger

	mu      sync.Mutex
	cond    *sync.Cond
	jobs    []passJob
	bytes   int  // the sizes of jobs
	dropped int  // since the queue was last empty
	busy    bool // the goroutine is passing jobs on
	closed  bool // Close: no more jobs; the goroutine ends
	done    chan struct{}
}

// A passJob is one notice to pass on, of about size bytes, or a fence.
type passJob struct {
	size  int
	run   func()
	fence chan struct{} // closed when the jobs before it ran
}

// newPassOn starts the goroutine of server's queue, which close ends.
func newPassOn(server string, bound int, log *slog.Logger) *passOn {
	q := &passOn{server: server, bound: bound, log: log, done: make(chan struct{})}
	q.cond = sync.NewCond(&q.mu)
	go q.loop()
	return q
}

// push queues run, a notice of about size bytes, and reports whether it
// did: not when the queue is full, or closed.
func (q *passOn) push(size int, run func()) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	if q.bytes > 0 && q.bytes+size > q.bound {
		if q.dropped == 0 {
			q.log.Warn("gateway: a server's notices are dropped: they come faster than the gateway passes them on", "server", q.server, "queued_bytes", q.bound)
		}
		q.dropped++
		return false
	}
	q.jobs = append(q.jobs, passJob{size: size, run: run})
	q.bytes += size
	q.cond.Broadcast()
	return true
}

// fence returns once the notices queued before it were passed on, or ctx
// ends, or the queue is closed: a request's result is written after what
// the server said during it.
func (q *passOn) fence(ctx context.Context) {
	q.mu.Lock()
	if q.closed || (len(q.jobs) == 0 && !q.busy) {
		q.mu.Unlock()
		return // nothing to wait for
	}
	f := make(chan struct{})
	q.jobs = append(q.jobs, passJob{fence: f})
	q.cond.Broadcast()
	q.mu.Unlock()
	select {
	case <-f:
	case <-ctx.Done():
	case <-q.done:
	}
}

// loop passes the queued notices on, in order, until the queue is closed.
func (q *passOn) loop() {
	defer close(q.done)
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		for len(q.jobs) == 0 && !q.closed {
			if q.dropped > 0 {
				q.log.Warn("gateway: a server's notices were dropped", "server", q.server, "dropped", q.dropped)
				q.dropped = 0
			}
			q.cond.Wait()
		}
		if q.closed {
			return
		}
		jobs := q.jobs
		q.jobs, q.busy = nil, true
		q.mu.Unlock()
		for i, j := range jobs {
			if j.fence != nil {
				close(j.fence)
				continue
			}
			j.run()
			jobs[i] = passJob{} // let what it held go
			q.mu.Lock()
			q.bytes -= j.size
			q.mu.Unlock()
		}
		q.mu.Lock()
		q.busy = false
	}
}

// close ends the goroutine, dropping what is queued, and waits for it.
func (q *passOn) close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
	<-q.done
}

// noticeSize is about how many bytes a notice's value v holds.
func noticeSize(v any) int {
	const envelope = 128
	switch v := v.(type) {
	case nil:
		return envelope
	case string:
		return envelope + len(v)
	}
	data, _ := json.Marshal(v)
	return envelope + len(data)
}

// pass queues run, a notice of server of about size bytes, to be passed
// on in order with the server's others; a server the gateway has no queue
// for (none but the configured) has it run at once.
func (g *Gateway) pass(server string, size int, run func()) {
	if q := g.passing[server]; q != nil {
		q.push(size, run)
		return
	}
	run()
}

// enter counts a client's request to server, of any method, as in flight
// (inflight.go), and makes it for the client of the session ss
// (mcpclient.WithCaller, hostio.go): what the server asks during it is the
// client's, or no one's while requests of several clients are in flight.
// It first takes one of the server's slots, the client's fair share of
// them ([Limits] ServerCalls), waiting while they are taken, until ctx
// ends or the gateway closes. Its leave first waits for what the server
// said during it to be passed on, so that it reaches the client before
// the request's answer (a request without a session, the fast path's, is
// told nothing, and made for the caller its context has).
func (g *Gateway) enter(ctx context.Context, server string, ss *mcp.ServerSession) (context.Context, func(), error) {
	give := func() {}
	if share := g.share[server]; share != nil {
		var err error
		if give, err = share.enter(ctx, callerOf(ctx).name, g.ctx.Done()); err != nil {
			return ctx, nil, err
		}
	}
	if ss != nil {
		ctx = mcpclient.WithCaller(ctx, callerFor(ss, nil, ""))
	}
	ctx, leave := g.calls.enter(ctx, server, ss)
	q := g.passing[server]
	return ctx, func() {
		if q != nil && ss != nil {
			q.fence(ctx)
		}
		leave()
		give()
	}, nil
}

// stopPassing ends the servers' queues.
func (g *Gateway) stopPassing() {
	for _, q := range g.passing {
		q.close()
	}
}
