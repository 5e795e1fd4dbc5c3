package stdio

import (
	"context"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// One goroutine at a time reads the server's output: the one that holds
// the connection's turn. Most of the time that is the reader's goroutine
// (readLoop). But a call's answer read there reaches its caller only once
// the reader wakes the caller's goroutine, and on a machine of few cores,
// which the server shares, the runtime's waking of a second thread for it
// was a third of a quick call's time; so a caller awaiting an answer may
// take the turn and read for itself (Await), and the reader, seeing calls
// want it, gives the turn up until they stop.

const (
	// callerTurn bounds a caller's turn to read: an answer slower than
	// this is read by the reader's goroutine, which the wait for it then
	// costs nothing, and a caller whose context ends without a deadline
	// notices within it.
	callerTurn = 2 * time.Millisecond
	// readerRest is how long the reader, having given up its turn, waits
	// for callers to stop awaiting answers before it takes it back: what
	// the server says between calls (a notification, a request of its
	// own) waits up to twice as long.
	readerRest = time.Millisecond
)

// errYield ends a read in a caller's turn when the turn's time is up.
// Nothing read is lost: the frame reader goes on with the line on the
// next read.
var errYield = errors.New("stdio: the turn to read is over")

// Awaited, as the Extra of a request written, says that its writer awaits
// its answer with [Conn.Await]. The writes of other requests (go-sdk's)
// call the reader back to its turn, so that their answers are read at
// once.
type Awaited struct{}

// Await waits for the answer to a request written (marked [Awaited]),
// which the function given to [Conn.Answer] puts in answer: reading the
// server's output on the calling goroutine when no other goroutine reads
// it, for at most 2 ms (and not past ctx's deadline), so that the answer
// reaches the caller with no goroutine woken for it. It returns the answer
// and true; or false when the turn ended without the answer, ctx ended,
// the connection's reading ended, or the pipe cannot be read this way
// (not on Linux): the caller then waits on answer itself, which the
// reader's goroutine fills.
func (c *Conn) Await(ctx context.Context, answer <-chan *jsonrpc.Response) (*jsonrpc.Response, bool) {
	if !c.out.pollable() {
		return nil, false
	}
	c.awaits.Add(1)
	select {
	case resp := <-answer:
		return resp, true
	case <-c.turn:
	default:
		c.wanted.Store(true) // see readLoop
		if resp, ok, turn := c.wait(ctx, answer); !turn {
			return resp, ok
		}
	}
	c.readTurn(ctx, answer)
	select {
	case resp := <-answer:
		return resp, true
	default:
		return nil, false
	}
}

// wait waits, counted in waiting, for the answer, the turn (turn), ctx's
// end or the end of reading.
func (c *Conn) wait(ctx context.Context, answer <-chan *jsonrpc.Response) (resp *jsonrpc.Response, ok, turn bool) {
	c.waiting.Add(1)
	defer c.waiting.Add(-1)
	select {
	case resp = <-answer:
		return resp, true, false
	case <-c.turn:
		return nil, false, true
	case <-ctx.Done():
	case <-c.readerDone:
	}
	return nil, false, false
}

// readTurn reads, in a caller's turn, until answer holds the answer or
// the turn's time is up, and then gives the turn up.
func (c *Conn) readTurn(ctx context.Context, answer <-chan *jsonrpc.Response) {
	until := time.Now().Add(callerTurn)
	if d, ok := ctx.Deadline(); ok && d.Before(until) {
		until = d
	}
	// The deadline stays until the next turn sets its own (the reader
	// clears it): a second call of the file's deadline a call saved.
	c.out.turnUntil(until)
	c.callersTurn = true
	var err error
	for len(answer) == 0 && err == nil && c.stalled == nil {
		err = c.in.step()
	}
	stalled := c.stalled != nil
	c.callersTurn = false
	c.turn <- struct{}{}
	if len(answer) == 0 || stalled || c.unawaited.Swap(false) {
		// The reader reads on: the caller's answer is slow in coming,
		// reading ended, which the reader meets again and reports, a
		// message waits for go-sdk to read it, or a request of go-sdk's
		// was written in the turn, whose answer no caller awaits.
		c.callReader()
	}
}

// readLoop reads in the reader's turns until reading ends. It holds the
// turn from the start; when a caller wanted the turn (Await), and at most
// one waits for it, it gives it up after the message it read, and rests.
// Callers that wait for it in numbers (many calls at once) are left to the
// reader: their answers would pass the turn from caller to caller, each
// pass a goroutine woken, where the reader wakes only the caller of each.
func (c *Conn) readLoop() {
	defer close(c.readerDone)
	var idle *time.Timer // made when first needed: most connections never rest
	defer func() {
		if idle != nil {
			idle.Stop()
		}
	}()
	for {
		if err := c.in.step(); err != nil {
			c.readErr = c.readError(err)
			return
		}
		if c.wanted.Load() && c.waiting.Load() <= 1 && !c.isClosing() && c.ExitError() == nil {
			c.wanted.Store(false)
			c.turn <- struct{}{}
			if idle == nil {
				idle = time.NewTimer(c.restFor)
			}
			c.rest(idle)
		}
	}
}

// rest waits, the turn given up, until the reader should take it back:
// a request was written that is not awaited (go-sdk's), the connection is
// closing or the server exited, or no caller awaited an answer for
// readerRest; and then for the turn.
func (c *Conn) rest(idle *time.Timer) {
wait:
	for {
		awaits := c.awaits.Load()
		idle.Reset(c.restFor)
		select {
		case <-c.callBack:
			break wait
		case <-c.closing:
			break wait
		case <-c.exited:
			break wait
		case <-idle.C:
			if c.awaits.Load() == awaits {
				break wait
			}
		}
	}
	idle.Stop()
	<-c.turn
	c.out.turnUntil(time.Time{})
	stalled := c.stalled
	c.stalled = nil
	for _, m := range stalled {
		c.deliver(m) // again: all but the first went no further than stalled
	}
}

// callReader calls the reader back to its turn, if it rests.
func (c *Conn) callReader() {
	select {
	case c.callBack <- struct{}{}:
	default:
	}
}

// wrote notes msg written: the answer to a request that is not awaited
// must be read at once, by the reader if no caller reads.
func (c *Conn) wrote(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.ID.IsValid() {
		return
	}
	if _, awaited := req.Extra.(Awaited); awaited {
		return
	}
	c.unawaited.Store(true) // for a caller's turn to end with (readTurn)
	if len(c.turn) > 0 {
		c.callReader()
	}
}
