package stdio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/redact"
)

const (
	methodDiscover = "server/discover"

	// maxGroupGrace caps the wait between SIGTERM and SIGKILL for what is
	// left of the process group once the server itself has exited: those
	// are helpers of a server that is gone, and Done waits for them.
	maxGroupGrace = 500 * time.Millisecond

	// drainQuantum is how long the reader waits for more output on a pipe
	// that outlived the server (see stdoutReader) before calling it EOF.
	drainQuantum = 50 * time.Millisecond

	// killWait is the least time Close waits for a SIGKILLed server to be
	// reaped before reporting that it could not be stopped.
	killWait = time.Second
)

// errClosed is what Read and Write return once Close has been called; it
// wraps mcp.ErrConnectionClosed, which go-sdk and its callers test for.
var errClosed = mcp.ErrConnectionClosed

// Conn is the connection to a started MCP server process. It implements
// mcp.Connection and also reports on the process.
type Conn struct {
	name         string // Command.Path; never the arguments
	cmd          *exec.Cmd
	pid          int
	logger       *slog.Logger
	limit        int
	probeTimeout time.Duration
	stopTimeout  time.Duration
	answer       atomic.Pointer[func(*jsonrpc.Response) bool] // set by Answer, or nil

	stdin  *os.File
	stdout *os.File
	stderr *os.File // our end of the stderr pipe

	// writeLock is held while a line is written (writes must not
	// interleave); a channel, so that waiting for it can be abandoned.
	writeLock chan struct{}
	enc       *encoder // guarded by writeLock
	try       rawWrite // guarded by writeLock; see tryWrite
	// interrupt sets the write deadline that wakes a blocked write, when
	// the writer's context ends, and then tells interrupted: made once,
	// as one write runs at a time (writeLine).
	interrupt   func()
	interrupted chan struct{}

	failed   chan struct{} // closed when the stream broke; see fail
	failErr  error         // set before failed is closed
	failOnce sync.Once
	deaf     atomic.Bool // a write was abandoned: the server is not reading

	// in reads the server's output (out) in the turn of whoever holds
	// turn, a token (see await.go): the reader's goroutine, or a caller's.
	in        *inbound
	out       *stdoutReader
	turn      chan struct{}
	callBack  chan struct{} // wakes the reader resting from its turn
	wanted    atomic.Bool   // a caller wanted the turn the reader held
	waiting   atomic.Int32  // callers waiting for the turn, or their answer
	unawaited atomic.Bool   // a request was written whose answer no caller awaits
	// Guarded by turn: a caller reads (callersTurn), and the messages it
	// read from the one Read did not take at once on, for the reader to
	// deliver (stalled: at most a line's, as the caller's turn ends there).
	callersTurn bool
	stalled     []jsonrpc.Message
	awaits      atomic.Uint64 // answers awaited so far, to see callers stop
	restFor     time.Duration // readerRest, but in tests

	incoming   chan jsonrpc.Message // unbuffered, so readerDone implies all were taken
	wake       chan struct{}        // a synthetic message was queued in pending
	readerDone chan struct{}
	readErr    error // set before readerDone is closed

	mu      sync.Mutex
	probes  map[jsonrpc.ID]*probe
	pending []jsonrpc.Message // synthetic messages for Read, ahead of incoming

	closing   chan struct{}
	closeOnce sync.Once
	closeErr  error

	exited     chan struct{} // the server process has been reaped
	exitErr    error         // set before exited is closed
	signalled  atomic.Bool   // Close sent it SIGTERM, as it would not stop
	hungUp     atomic.Bool   // Close began while it ran: its exit came after
	done       chan struct{} // exited, and its process group is gone
	stderrDone chan struct{} // the stderr copier is done

	replies    sync.WaitGroup // answers written back by the reader
	replySlots chan struct{}  // bounds the answers waiting to be written

	junk junk // what the server wrote to stdout that is not JSON-RPC
	tail tail // the last lines it wrote to stderr
}

// probe is an outstanding "server/discover" request. Its bound counts from
// when the server shows it reads its stdin, the answer to a ping written
// after the probe, not from the write: a server's start (npx resolving a
// package, a loaded machine) must not decide its protocol version.
type probe struct {
	timer   *time.Timer
	ping    jsonrpc.ID // the ping written after the probe
	reading bool       // the server answered the ping
	expired bool       // answered for the server; a late real answer is dropped
}

// pingPrefix begins the id of a probe's ping.
const pingPrefix = "mcpbridge-probe-"

// probeSilence is how many times the probe timeout a probe waits for the
// answer to its ping: a server that answers no ping (which the protocol
// asks every server to) is still given initialize, later.
const probeSilence = 10

var _ mcp.Connection = (*Conn)(nil)

type connConfig struct {
	name                      string
	cmd                       *exec.Cmd
	stdin, stdout, stderr     *os.File
	stderrTo                  io.Writer
	secrets                   redact.Secrets
	limit                     int
	probeTimeout, stopTimeout time.Duration
	logger                    *slog.Logger
}

func newConn(cfg connConfig) *Conn {
	c := &Conn{
		name:         cfg.name,
		cmd:          cfg.cmd,
		pid:          cfg.cmd.Process.Pid,
		logger:       cfg.logger,
		limit:        cfg.limit,
		probeTimeout: cfg.probeTimeout,
		stopTimeout:  cfg.stopTimeout,
		stdin:        cfg.stdin,
		stdout:       cfg.stdout,
		stderr:       cfg.stderr,
		writeLock:    make(chan struct{}, 1),
		enc:          newEncoder(),
		interrupted:  make(chan struct{}, 1),
		failed:       make(chan struct{}),
		replySlots:   make(chan struct{}, maxReplies),
		incoming:     make(chan jsonrpc.Message),
		wake:         make(chan struct{}, 1),
		readerDone:   make(chan struct{}),
		closing:      make(chan struct{}),
		exited:       make(chan struct{}),
		done:         make(chan struct{}),
		stderrDone:   make(chan struct{}),
		turn:         make(chan struct{}, 1), // empty: the reader's turn
		callBack:     make(chan struct{}, 1),
		restFor:      readerRest,
	}
	c.interrupt = c.interruptWrite
	c.junk.secrets, c.tail.secrets = cfg.secrets, cfg.secrets
	to := cfg.stderrTo
	if to != nil && !cfg.secrets.Empty() {
		to = &maskedLines{w: to, secrets: cfg.secrets}
	}
	c.out = &stdoutReader{f: c.stdout}
	c.out.init()
	c.in = &inbound{
		fr:     newFrameReader(c.out, c.limit, readBufferSize),
		limit:  c.limit,
		sink:   c,
		logger: c.logger.With("command", c.name, "pid", c.pid),
	}
	go c.copyStderr(to)
	go c.reap()
	go c.readLoop()
	return c
}

// Pid returns the server's process id, which is also its process group id
// on Unix.
func (c *Conn) Pid() int { return c.pid }

// Done returns a channel closed once the server process has exited and no
// other member of its process group is left.
func (c *Conn) Done() <-chan struct{} { return c.done }

// ExitError returns nil while the server process runs, and afterwards an
// error saying how it ended, such as "exit status 1" or "signal: killed"
// (an *exec.ExitError, also for exit status 0: an MCP server is not meant
// to exit by itself, so callers explaining a failure want to say so).
func (c *Conn) ExitError() error {
	select {
	case <-c.exited:
		return c.exitErr
	default:
		return nil
	}
}

// SessionID implements mcp.Connection; stdio has no sessions.
func (c *Conn) SessionID() string { return "" }

// Read implements mcp.Connection. It returns messages in the order the
// server wrote them, with synthetic error responses for requests whose
// answers were too long or that timed out as a discovery probe. Once the
// server has exited it returns an error wrapping io.EOF that says how; once
// the connection has failed (see [Conn.Write]), that failure.
func (c *Conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := c.unusable(); err != nil {
		return nil, err
	}
	for {
		if m := c.popPending(); m != nil {
			return m, nil
		}
		select {
		case m := <-c.incoming:
			return m, nil
		case <-c.wake:
		case <-c.readerDone:
			if m := c.popPending(); m != nil {
				return m, nil
			}
			if c.isClosing() {
				return nil, errClosed
			}
			return nil, c.readErr
		case <-c.closing:
			return nil, errClosed
		case <-c.failed:
			return nil, c.failErr
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Close stops the server as the MCP specification asks: close its stdin;
// if it has not exited within StopTimeout, SIGTERM (at once if a write was
// abandoned: a server that does not read will not see its stdin close); if
// not within another StopTimeout, SIGKILL. Signals go to its whole process group, so that
// processes it started go too. It returns nil once the process is gone,
// however it exited (see ExitError), and an error only if it could not be
// stopped. Close is idempotent, safe from any goroutine, and unblocks
// pending Reads and Writes.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.stop() })
	return c.closeErr
}

func (c *Conn) stop() error {
	// Whatever the server does from now on (it exits as its stdin closes,
	// or as it is signalled) follows the host's hang-up, and is not why
	// the connection failed; one that had exited already, reaped or not,
	// ended by itself.
	c.hungUp.Store(c.ExitError() == nil && !hasExited(c.pid))
	close(c.closing)
	c.stopProbes()
	_ = c.stdin.Close()
	var err error
	// A server known not to read its stdin will not see it close either.
	if c.deaf.Load() || !waitFor(c.done, c.stopTimeout) {
		c.logger.Debug("MCP server did not exit after its stdin closed; sending SIGTERM", "command", c.name, "pid", c.pid)
		c.signalled.Store(true)
		c.terminate()
		if !waitFor(c.done, c.stopTimeout) {
			c.logger.Warn("MCP server did not exit after SIGTERM; sending SIGKILL", "command", c.name, "pid", c.pid)
			c.kill()
			// Not the server's courtesy any more but the kernel's, which
			// may take a moment on a loaded machine.
			if !waitFor(c.done, max(c.stopTimeout, killWait)) {
				err = fmt.Errorf("MCP server %q (pid %d) did not exit after SIGKILL", c.name, c.pid)
				c.logger.Error("MCP server did not exit after SIGKILL", "command", c.name, "pid", c.pid)
			}
		}
	}
	// What an exited server wrote last may still be in the pipe, unread:
	// the reader takes it, within the bound the reaper's read deadline
	// sets, so that an error can quote it. Then the reader may be blocked
	// on a pipe still held open (by a process outside the group, or a
	// server that would not die); closing our end unblocks it.
	select {
	case <-c.exited:
		waitFor(c.readerDone, c.stopTimeout+2*drainQuantum)
	default:
	}
	_ = c.stdout.Close()
	<-c.readerDone
	c.replies.Wait()
	if !waitFor(c.stderrDone, c.stopTimeout) {
		// Held open by a process outside the group, or Stderr is blocking.
		_ = c.stderr.Close()
		waitFor(c.stderrDone, c.stopTimeout)
	}
	return err
}

// reap waits for the server to exit, then makes sure nothing of its process
// group survives it: helpers left behind would hold its pipes open, keeping
// Read from seeing EOF, and would leak.
func (c *Conn) reap() {
	err := c.cmd.Wait()
	if err == nil && c.cmd.ProcessState != nil {
		err = &exec.ExitError{ProcessState: c.cmd.ProcessState}
	}
	c.exitErr = err
	close(c.exited)
	stopGroup(c.pid, min(c.stopTimeout, maxGroupGrace))
	// A process that left the group (setsid) may still hold stdout open;
	// this bounds how long the reader waits on it (see stdoutReader).
	c.out.setBase(time.Now().Add(c.stopTimeout))
	c.logger.Debug("MCP server exited", "command", c.name, "pid", c.pid, "status", describe(err))
	close(c.done)
}

// readError turns the error that ended reading into the one Read returns.
func (c *Conn) readError(err error) error {
	if !errors.Is(err, io.EOF) {
		if c.isClosing() {
			return errClosed // our end of the pipe, closed by Close
		}
		return fmt.Errorf("reading from MCP server %q: %w", c.name, err)
	}
	// The server closed its stdout, as it does when it exits (during
	// Close too: Close's own end of the pipe gives another error, above);
	// give the reaper a moment so the error can say how it exited.
	t := time.NewTimer(c.stopTimeout)
	defer t.Stop()
	select {
	case <-c.exited:
		return fmt.Errorf("MCP server %q exited (%s): %w", c.name, describe(c.exitErr), io.EOF)
	case <-t.C:
		return fmt.Errorf("MCP server %q closed its stdout: %w", c.name, io.EOF)
	}
}

func describe(exitErr error) string {
	if exitErr == nil {
		return "unknown status"
	}
	return exitErr.Error()
}

// deliver hands m to Read, unless it is the answer to a probe's ping, the
// late answer to a probe that was already answered for the server, or an
// answer the function given to Answer took.
func (c *Conn) deliver(m jsonrpc.Message) {
	if c.callersTurn && len(c.stalled) > 0 {
		c.stalled = append(c.stalled, m) // behind one Read did not take (a batch's)
		return
	}
	c.junk.spoke()
	if resp, ok := m.(*jsonrpc.Response); ok {
		if c.pinged(resp.ID) {
			return
		}
		if c.settleProbe(resp.ID) {
			c.logger.Debug("dropping a late answer to server/discover", "command", c.name, "pid", c.pid)
			return
		}
		if f := c.answer.Load(); f != nil && (*f)(resp) {
			return
		}
	}
	if c.callersTurn {
		// A caller never waits for go-sdk to read: the reader does, the
		// caller's turn ended (readTurn).
		select {
		case c.incoming <- m:
		default:
			c.stalled = append(c.stalled, m)
		}
		return
	}
	c.hand(m)
}

// hand hands m to Read, waiting until it is taken, the connection closes
// or fails.
func (c *Conn) hand(m jsonrpc.Message) {
	select {
	case c.incoming <- m:
	case <-c.closing:
		// Keep reading and discarding: a server blocked writing to a full
		// stdout could not notice its stdin closing.
	case <-c.failed:
	}
}

// Answer has the connection give each response it reads to f before Read
// would return it, on the goroutine that read it: one f reports it took
// goes no further. It applies to the responses read after it returns.
func (c *Conn) Answer(f func(*jsonrpc.Response) bool) { c.answer.Store(&f) }

// startProbe arms a probe for the request id, and returns the ping to
// write after it (nil without a bound).
func (c *Conn) startProbe(id jsonrpc.ID) *jsonrpc.Request {
	if c.probeTimeout < 0 {
		return nil // no bound: the server answers, or the caller gives up
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.probes == nil {
		c.probes = make(map[jsonrpc.ID]*probe)
	}
	if old := c.probes[id]; old != nil {
		old.timer.Stop()
	}
	// A string id: go-sdk's are numbers, so no answer of its is taken.
	ping, _ := jsonrpc.MakeID(fmt.Sprintf("%s%v", pingPrefix, id.Raw()))
	p := &probe{ping: ping}
	p.timer = time.AfterFunc(probeSilence*c.probeTimeout, func() { c.expireProbe(id, p) })
	c.probes[id] = p
	return &jsonrpc.Request{ID: ping, Method: "ping"}
}

// pinged reports whether id is a probe's ping. Its answer (a result or an
// error: either way the server reads) starts the probe's bound; after the
// probe's own answer, the common order, it is dropped.
func (c *Conn) pinged(id jsonrpc.ID) bool {
	if s, ok := id.Raw().(string); !ok || !strings.HasPrefix(s, pingPrefix) {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.probes {
		if p.ping == id && !p.expired && !p.reading {
			p.reading = true
			p.timer.Reset(c.probeTimeout)
		}
	}
	return true
}

// expireProbe answers an unanswered probe for the server with "method not
// found", which makes go-sdk's client fall back to initialize.
func (c *Conn) expireProbe(id jsonrpc.ID, p *probe) {
	c.mu.Lock()
	if c.probes[id] != p || p.expired || c.isClosing() {
		c.mu.Unlock()
		return
	}
	p.expired = true
	msg := fmt.Sprintf("MCP server did not answer %s within %v of answering a ping", methodDiscover, c.probeTimeout)
	if !p.reading {
		msg = fmt.Sprintf("MCP server answered neither %s nor a ping within %v", methodDiscover, probeSilence*c.probeTimeout)
	}
	c.pending = append(c.pending, &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: msg}})
	c.mu.Unlock()
	c.logger.Debug("MCP server did not answer server/discover in time; falling back to initialize",
		"command", c.name, "pid", c.pid, "timeout", c.probeTimeout)
	select {
	case c.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// settleProbe records the answer to id and reports whether it must be
// dropped, having been answered for the server already.
func (c *Conn) settleProbe(id jsonrpc.ID) (drop bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.probes[id]
	if !ok {
		return false
	}
	delete(c.probes, id)
	p.timer.Stop()
	return p.expired
}

func (c *Conn) cancelProbe(id jsonrpc.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.probes[id]; ok && !p.expired {
		p.timer.Stop()
		delete(c.probes, id)
	}
}

func (c *Conn) stopProbes() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, p := range c.probes {
		p.timer.Stop()
		delete(c.probes, id)
	}
}

func (c *Conn) popPending() jsonrpc.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pending) == 0 {
		return nil
	}
	m := c.pending[0]
	c.pending[0] = nil
	c.pending = c.pending[1:]
	return m
}

func (c *Conn) isClosing() bool {
	select {
	case <-c.closing:
		return true
	default:
		return false
	}
}

// waitFor reports whether ch closed within d.
func waitFor(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}
