package gateway

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// One client must not stall another. go-sdk's server writes every message
// to a client's HTTP stream (a session's event stream, the answer to a
// request) at once, on the goroutine that sends it: a server's
// notification passed on by the one goroutine that handles everything
// the server sends, a list change, a resource's update. A client that does
// not read would hold that goroutine as soon as its connection's buffers
// are full, and with it every other client's progress, questions and
// notifications. So go-sdk writes to a lane instead of the connection: a
// queue of its own, bounded, which one goroutine of the lane's writes to
// the connection. A write to a lane never waits on the client; a client
// whose lane holds more than the bound ([Limits].ClientQueueBytes) when
// another message comes has fallen behind, and loses that stream (its
// connection is closed), never anything of another's.

// errFellBehind is a lane's answer to a write once its client fell behind.
var errFellBehind = errors.New("gateway: the client fell behind: its stream is closed")

// lanes serves next with each request's response written through a lane.
func (g *Gateway) lanes(next http.Handler) http.Handler {
	bound := g.lim.ClientQueueBytes
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		client := clientName(auth.TokenInfoFromContext(r.Context()))
		l := newLane(w, bound, func() {
			cancel()
			g.log.Warn("gateway: a client fell behind: its stream is closed", "client", client,
				"session", r.Header.Get("Mcp-Session-Id"), "method", r.Method, "queued_bytes", bound)
		})
		l.held = func(n int) { g.results.add(client, int64(n)) } // results.go
		defer l.finish()
		next.ServeHTTP(l, r.WithContext(ctx))
	})
}

// A lane is an [http.ResponseWriter] whose writes queue up, for a
// goroutine of its own to write to the connection's writer w and flush.
type lane struct {
	w     http.ResponseWriter
	rc    *http.ResponseController
	bound int
	fell  func()      // called once, when the client falls behind
	held  func(n int) // told of the bytes it holds, n more (or fewer); may be nil

	mu        sync.Mutex
	cond      *sync.Cond // signalled when ops, writing, failed or finished change
	committed bool       // something was written: the header is w's
	ops       []laneOp   // queued, in order
	queued    int        // bytes of ops
	writing   bool       // the writer holds a batch: it is writing to the connection
	failed    bool       // fell behind, or a write failed: the rest is dropped
	finished  bool       // the handler returned: write what is queued and end
	started   bool
	done      chan struct{} // closed when the writer ends
}

// A laneOp is one thing to do to the connection: a status, bytes, a flush.
type laneOp struct {
	status int
	data   []byte
	flush  bool
}

func newLane(w http.ResponseWriter, bound int, fell func()) *lane {
	l := &lane{w: w, rc: http.NewResponseController(w), bound: bound, fell: fell, done: make(chan struct{})}
	l.cond = sync.NewCond(&l.mu)
	return l
}

// Header is the connection's header until something is written, which
// go-sdk sets before; a copy after, where changes count for nothing, as
// they would on the connection.
func (l *lane) Header() http.Header {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.committed {
		return l.w.Header().Clone()
	}
	return l.w.Header()
}

// WriteHeader queues the status.
func (l *lane) WriteHeader(status int) { _ = l.push(laneOp{status: status}) }

// Write queues a copy of p: it never waits on the client.
func (l *lane) Write(p []byte) (int, error) {
	if err := l.push(laneOp{data: append([]byte(nil), p...)}); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush queues a flush, for the writer to do once it wrote what came
// before.
func (l *lane) Flush() { _ = l.push(laneOp{flush: true}) }

// push queues op, unless the client fell behind: more than the bound is
// queued while the writer is writing to the connection, which the client
// does not take fast enough. A lane so holds at most its bound and one
// message besides what the writer holds. Over the bound while the writer
// holds nothing, push waits for it to take what is queued, which it does
// as soon as it runs: a wait on the scheduler, never on the client.
func (l *lane) push(op laneOp) error {
	l.mu.Lock()
	if !l.started {
		l.started = true
		go l.write()
	}
	for len(op.data) > 0 && l.queued > l.bound && !l.failed {
		if l.writing {
			l.failLocked()
			l.mu.Unlock()
			l.fell()
			return errFellBehind
		}
		l.cond.Wait()
	}
	if l.failed {
		l.mu.Unlock()
		return errFellBehind
	}
	l.committed = true
	l.ops = append(l.ops, op)
	l.queued += len(op.data)
	l.count(len(op.data))
	l.cond.Broadcast()
	l.mu.Unlock()
	return nil
}

// failLocked drops what is queued and ends a write the client holds: the
// connection fails its writes from now on, which closes it.
func (l *lane) failLocked() {
	l.failed = true
	l.count(-l.queued)
	l.ops, l.queued = nil, 0
	_ = l.rc.SetWriteDeadline(time.Unix(1, 0))
	l.cond.Broadcast()
}

// write writes what is queued, in order, a batch at a time, flushing after
// a batch that asked for it, until the handler finished and nothing is
// left, or the lane failed.
func (l *lane) write() {
	defer close(l.done)
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		for len(l.ops) == 0 && !l.finished && !l.failed {
			l.cond.Wait()
		}
		if l.failed || len(l.ops) == 0 {
			return
		}
		ops, n := l.ops, l.queued
		l.ops, l.queued, l.writing = nil, 0, true
		l.cond.Broadcast()
		l.mu.Unlock()
		err := l.apply(ops)
		l.count(-n)
		l.mu.Lock()
		l.writing = false
		if err != nil && !l.failed {
			l.failLocked()
		}
	}
}

// count tells held of n bytes more held, or fewer.
func (l *lane) count(n int) {
	if l.held != nil && n != 0 {
		l.held(n)
	}
}

// apply does ops to the connection, and flushes if one asked for it.
func (l *lane) apply(ops []laneOp) error {
	flush := false
	for _, op := range ops {
		switch {
		case op.flush:
			flush = true
		case op.status != 0:
			l.w.WriteHeader(op.status)
		default:
			if _, err := l.w.Write(op.data); err != nil {
				return err
			}
		}
	}
	if flush {
		return l.rc.Flush()
	}
	return nil
}

// finish waits, once the handler returned, for the writer to write what is
// queued: the connection's writer may not be used after.
func (l *lane) finish() {
	l.mu.Lock()
	l.finished = true
	started := l.started
	l.cond.Broadcast()
	l.mu.Unlock()
	if started {
		<-l.done
	}
}
