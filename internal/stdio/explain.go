package stdio

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"syscall"
)

// A ServerError is a failure of the connection with what the connection
// knows of its cause: how the server process ended, that it stopped reading
// its stdin, the last lines it wrote to stdout that are not JSON-RPC and to
// its stderr. [Conn.Explain] returns it. The lines are the server's, each
// cut to one line without escapes or control characters.
type ServerError struct {
	// Err is the failure.
	Err error
	// Exit says how the server process ended (see [Conn.ExitError]); nil
	// while it runs.
	Exit error
	// Stopped reports that the process ended after the connection's Close
	// began (its stdin closed, or a signal): Exit is then not why the
	// connection failed, and Error does not say it.
	Stopped bool
	// NotReading reports that the server stopped reading its stdin.
	NotReading bool
	// Ended reports that the server closed its stdout, as a process does
	// as it exits, before the connection was closed or failed: the server
	// ended the session, whatever it wrote before.
	Ended bool
	// Stdout are the last lines it wrote to stdout since its last message
	// that are not JSON-RPC, at most three.
	Stdout []string
	// Stderr are the last lines it wrote to its stderr, at most five,
	// without the frames of a stack trace.
	Stderr []string
	// Crashed reports that it wrote a stack trace to its stderr: it failed
	// on an error of its own code, whose line Stderr quotes.
	Crashed bool
	// Listens is the URL the server said it listens on (on stdout, which
	// fails the connection at once, or on stderr) before it wrote any
	// JSON-RPC: a server that serves MCP over HTTP, to reach at that URL.
	// It has no user info, query or fragment.
	Listens string
}

// Error returns Err's text followed, in parentheses, by what is known of
// the cause.
func (e *ServerError) Error() string {
	var notes []string
	if e.Exit != nil && !e.Stopped {
		notes = append(notes, "server process: "+e.Exit.Error())
	}
	if e.NotReading {
		notes = append(notes, "the server is not reading its stdin")
	}
	if len(e.Stdout) > 0 {
		notes = append(notes, "the server wrote to stdout what is not JSON-RPC: "+quoteAll(e.Stdout))
	}
	if len(e.Stderr) > 0 {
		notes = append(notes, "its last words on stderr: "+quoteAll(e.Stderr))
	}
	if len(notes) == 0 {
		return e.Err.Error()
	}
	return fmt.Sprintf("%v (%s)", e.Err, strings.Join(notes, "; "))
}

func (e *ServerError) Unwrap() error { return e.Err }

// quoteAll quotes each line, separated by commas.
func quoteAll(lines []string) string {
	q := make([]string, len(lines))
	for i, s := range lines {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

// Explain adds to err, a failure of the connection, what the connection
// knows of its cause, as a *[ServerError]. It returns err itself when it
// knows nothing more, and nil for nil. A server that exited after Close
// began is Stopped: the failure the host found came first and stays the
// cause, whatever the server did after the host hung up.
func (c *Conn) Explain(err error) error {
	if err == nil {
		return nil
	}
	exit := c.ExitError()
	if exit == nil && errors.Is(err, syscall.EPIPE) && waitFor(c.exited, c.stopTimeout) {
		// The server closed its stdin, as an exiting server does, before
		// it was reaped: its exit is the cause, as it is when the reaper
		// comes first.
		exit = c.ExitError()
	}
	if exit != nil {
		// A write can fail on the exited server before the reader has
		// read what it wrote last; the reaper's read deadline bounds that
		// read (see stdoutReader), so the error waits for it.
		waitFor(c.readerDone, c.stopTimeout+2*drainQuantum)
	}
	e := &ServerError{Err: err, Exit: exit, NotReading: c.deaf.Load(), Stdout: c.junk.last(), Stderr: c.Stderr(), Crashed: c.Crashed()}
	if silent, listens := c.junk.notSpoken(); silent {
		for _, l := range e.Stderr {
			listens = cmp.Or(listens, listenURL(l))
		}
		e.Listens = listens
	}
	e.Stopped = e.Exit != nil && (c.signalled.Load() || c.hungUp.Load())
	select {
	case <-c.readerDone:
		// Closed by the server itself: not as Close stopped it.
		e.Ended = errors.Is(c.readErr, io.EOF) && !e.Stopped
	default:
	}
	if (e.Exit == nil || e.Stopped) && !e.NotReading && len(e.Stdout) == 0 && len(e.Stderr) == 0 {
		return err
	}
	return e
}
