package stdio

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxReplies bounds the answers the reader writes back to a server (refusals
// of requests it cannot take) that may wait to be written at once. A server
// that sends more while reading none is not answered.
const maxReplies = 16

// aLongTimeAgo is a write deadline that has passed: setting it wakes a
// blocked write.
var aLongTimeAgo = time.Unix(1, 0)

// Write implements mcp.Connection, sending msg as one line. A server that
// does not read its stdin cannot hold it: Write gives up when ctx ends
// (within quickWrite) or the connection closes. If nothing of the line was
// sent, it returns ctx's error and the connection is unharmed. If part of
// it was, the rest cannot be taken back and the stream is corrupt, so the
// connection fails: every Read and Write after returns an error saying so,
// and the caller must Close it (go-sdk does, seeing Read fail), which then
// stops the server without waiting for it to notice its stdin close.
func (c *Conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := c.unusable(); err != nil {
		return err
	}
	var probeID jsonrpc.ID
	var ping *jsonrpc.Request
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == methodDiscover && req.ID.IsValid() {
		// Armed before the write: the answer may arrive before Write
		// returns, and must find the probe to disarm.
		probeID = req.ID
		ping = c.startProbe(probeID)
	}
	err := c.write(ctx, msg)
	if err == nil && ping != nil {
		// Not the caller's message: if it cannot go, the probe waits for
		// its answer within the longer bound.
		_ = c.write(ctx, ping)
	}
	if err != nil && probeID.IsValid() {
		c.cancelProbe(probeID)
	}
	return err
}

func (c *Conn) write(ctx context.Context, msg jsonrpc.Message) error {
	select {
	case c.writeLock <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	case <-c.closing:
		return errClosed
	case <-c.failed:
		return c.failErr
	}
	defer func() { <-c.writeLock }()
	if err := c.unusable(); err != nil {
		return err
	}
	line, err := c.enc.encode(msg)
	if err != nil {
		return err
	}
	n, err := c.writeLine(ctx, line)
	if err != nil {
		return c.writeError(ctx, len(line), n, err)
	}
	c.deaf.Store(false)
	c.wrote(msg)
	return nil
}

// rawWrite is a write straight to the pipe's descriptor (tryWrite): the
// descriptor, the function that writes, and its line and outcome.
type rawWrite struct {
	conn  syscall.RawConn
	write func(fd uintptr) bool
	line  []byte
	n     int
	err   error
}

// quickWrite is how long a write may wait for room in the pipe before it
// watches its context: a line that fits, nearly every line, is written at
// once, without the watch (four allocations a write).
const quickWrite = time.Millisecond

// writeLine writes line to the server's stdin, a pipe whose write deadline
// interrupts the write when ctx ends (within quickWrite); Close interrupts
// it by closing the pipe.
func (c *Conn) writeLine(ctx context.Context, line []byte) (int, error) {
	sent, err := c.tryWrite(line)
	if err != nil || sent == len(line) {
		return sent, err
	}
	n, err := c.waitWrite(ctx, line[sent:])
	return sent + n, err
}

// waitWrite writes line as writeLine does, waiting for room in the pipe.
func (c *Conn) waitWrite(ctx context.Context, line []byte) (int, error) {
	if ctx.Done() == nil {
		return c.stdin.Write(line)
	}
	_ = c.stdin.SetWriteDeadline(time.Now().Add(quickWrite))
	n, err := c.stdin.Write(line)
	_ = c.stdin.SetWriteDeadline(time.Time{})
	if !errors.Is(err, os.ErrDeadlineExceeded) || ctx.Err() != nil {
		return n, err
	}
	// The server is slow to read: the rest waits for it as long as ctx
	// lets it.
	stop := context.AfterFunc(ctx, c.interrupt)
	m, err := c.stdin.Write(line[n:])
	if !stop() {
		// The deadline is set, or about to be: clear it for the next write.
		<-c.interrupted
		_ = c.stdin.SetWriteDeadline(time.Time{})
	}
	return n + m, err
}

// interruptWrite wakes the write in progress by its deadline, and tells
// it so.
func (c *Conn) interruptWrite() {
	_ = c.stdin.SetWriteDeadline(aLongTimeAgo)
	c.interrupted <- struct{}{}
}

// writeError names the failure of a write of size bytes of which sent
// went out, failing the connection if the line was cut short.
func (c *Conn) writeError(ctx context.Context, size, sent int, err error) error {
	if c.isClosing() {
		return errClosed
	}
	select {
	case <-c.exited:
		return fmt.Errorf("MCP server %q exited (%v): %w", c.name, c.exitErr, err)
	default:
	}
	if ctx.Err() != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		c.deaf.Store(true)
		c.logger.Warn("MCP server is not reading its stdin; gave up a write", "command", c.name, "pid", c.pid, "bytes", size, "sent", sent)
		err = fmt.Errorf("MCP server %q is not reading its stdin: %w", c.name, ctx.Err())
	} else {
		err = fmt.Errorf("writing to MCP server %q: %w", c.name, err)
	}
	if sent > 0 {
		// Not wrapping err: the caller's context ending is this caller's
		// business, while the failure is every caller's.
		c.fail(fmt.Errorf("MCP server %q: %w: a message was cut short after %d of its %d bytes, corrupting the stream (%v)",
			c.name, mcp.ErrConnectionClosed, sent, size, err))
	}
	return err
}

// fail makes the connection unusable: from now on Read and Write return err.
// The first failure is the one kept.
func (c *Conn) fail(err error) {
	c.failOnce.Do(func() {
		c.failErr = err
		close(c.failed)
	})
}

// unusable returns the error Read and Write return once the connection is
// closed or has failed, and nil before.
func (c *Conn) unusable() error {
	if c.isClosing() {
		return errClosed
	}
	select {
	case <-c.failed:
		return c.failErr
	default:
		return nil
	}
}

// reply writes resp, the refusal of a request from the server, from a
// goroutine: the server may be blocked writing to us while our write to it
// is blocked. Close abandons it.
func (c *Conn) reply(resp *jsonrpc.Response) {
	select {
	case c.replySlots <- struct{}{}:
	default:
		c.logger.Warn("not answering MCP server: too many answers it has not read", "command", c.name, "pid", c.pid)
		return
	}
	c.replies.Go(func() {
		defer func() { <-c.replySlots }()
		_ = c.write(context.Background(), resp)
	})
}
