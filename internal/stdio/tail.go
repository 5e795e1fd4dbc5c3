package stdio

import (
	"bytes"
	"io"
	"regexp"
	"slices"
	"sync"

	"github.com/mcpbridge/mcpbridge/internal/redact"
)

// The bounds on what is kept of a server's stderr.
const (
	// maxTailLines is how many of its last lines an error quotes.
	maxTailLines = 5
	// maxTailLine is the bytes of a line an error quotes.
	maxTailLine = 200
)

// A tail keeps the last lines a server wrote to its stderr, for an error to
// quote when the server fails: a bounded ring of lines, each cut to one line
// of text without escapes or control characters, as they are the server's.
// Blank lines are not kept, nor the frames of a stack trace (JavaScript's,
// Python's, Go's), so that a server that crashed is quoted by its error
// line, not by the last frames of its trace. It is safe for concurrent use.
type tail struct {
	secrets redact.Secrets // masked in the lines kept

	mu      sync.Mutex
	lines   []string // complete lines, oldest first
	part    []byte   // the line being written, a byte more than quotable reads of it at most
	trace   trace    // the stack trace being written
	crashed bool     // the server wrote a stack trace
}

// trace is the kind of stack trace a server is writing, whose frames a
// tail leaves out.
type trace int

const (
	noTrace trace = iota
	jsTrace       // "    at f (file.js:1:2)" lines, after the error's
	pyTrace       // after "Traceback (most recent call last):", indented lines, then the error's
	goTrace       // after "goroutine 1 [running]:", to the end
)

// jsFrame is a frame of a JavaScript (or Java) stack trace.
var jsFrame = regexp.MustCompile(`^\s+at \S`)

// goTraceStart begins a Go program's trace of its goroutines, after its
// "panic: ..." line.
var goTraceStart = regexp.MustCompile(`^goroutine \d+ \[.*\]:$`)

// frame reports whether line is a frame of a stack trace, to leave out,
// following the trace the lines before it began.
func (t *tail) frame(line []byte) bool {
	switch {
	case jsFrame.Match(line):
		if t.trace != jsTrace && len(t.lines) > 0 {
			// Node prints the source around the error first: what is
			// worth quoting is the error's own line, the last before the
			// frames.
			t.lines = append(t.lines[:0], t.lines[len(t.lines)-1])
		}
		t.trace, t.crashed = jsTrace, true
		return true
	case string(bytes.TrimSpace(line)) == "Traceback (most recent call last):":
		t.trace, t.crashed = pyTrace, true
		return true
	case goTraceStart.Match(line):
		t.trace, t.crashed = goTrace, true
		return true
	case t.trace == goTrace:
		return true
	case t.trace == pyTrace && len(line) > 0 && (line[0] == ' ' || line[0] == '\t'):
		return true
	}
	t.trace = noTrace
	return false
}

// Write keeps what p completes of the server's lines. It never fails.
func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		line, rest, complete := bytes.Cut(p, []byte("\n"))
		room := max(4*maxTailLine+maxSecretRoom+1-len(t.part), 0)
		t.part = append(t.part, line[:min(len(line), room)]...)
		if !complete {
			break
		}
		t.push()
		p = rest
	}
	return n, nil
}

// push ends the line being written.
func (t *tail) push() {
	if len(bytes.TrimSpace(t.part)) == 0 {
		t.part = t.part[:0]
		return
	}
	if t.frame(t.part) {
		t.part = t.part[:0]
		return
	}
	q := quotable(t.part, maxTailLine, t.secrets)
	t.part = t.part[:0]
	if q == "" {
		return
	}
	if len(t.lines) == maxTailLines {
		t.lines = append(t.lines[:0], t.lines[1:]...)
	}
	t.lines = append(t.lines, q)
}

// last returns the lines kept, the one still being written included.
func (t *tail) last() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := slices.Clone(t.lines)
	if q := quotable(t.part, maxTailLine, t.secrets); q != "" {
		lines = append(lines[max(len(lines)+1-maxTailLines, 0):], q)
	}
	return lines
}

// maskedLines passes on what a server writes with its secrets masked, a
// line at a time, so that a secret written in two pieces is still seen
// whole; a line longer than maxMaskedLine is passed on in pieces of that
// size. Flush passes on the line left unended.
type maskedLines struct {
	w       io.Writer
	secrets redact.Secrets
	part    []byte
}

// maxMaskedLine bounds what maskedLines holds of a line.
const maxMaskedLine = 64 << 10

func (m *maskedLines) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		line, rest, complete := bytes.Cut(p, []byte("\n"))
		m.part = append(m.part, line...)
		if complete {
			m.part = append(m.part, '\n')
		}
		if complete || len(m.part) >= maxMaskedLine {
			if err := m.Flush(); err != nil {
				return 0, err
			}
		}
		if !complete {
			break
		}
		p = rest
	}
	return n, nil
}

// Flush passes on what is held.
func (m *maskedLines) Flush() error {
	if len(m.part) == 0 {
		return nil
	}
	_, err := io.WriteString(m.w, m.secrets.Mask(string(m.part)))
	m.part = m.part[:0]
	return err
}

// copyStderr copies the server's stderr to to, keeping its tail, until the
// pipe ends. A writer that fails is given nothing more, but the pipe is
// read to its end, so that the server never blocks on it.
func (c *Conn) copyStderr(to io.Writer) {
	defer close(c.stderrDone)
	buf := make([]byte, 32<<10)
	for {
		n, err := c.stderr.Read(buf)
		if n > 0 {
			c.tail.Write(buf[:n])
			if to != nil {
				if _, werr := to.Write(buf[:n]); werr != nil {
					to = nil
				}
			}
		}
		if err != nil {
			break
		}
	}
	if m, ok := to.(*maskedLines); ok {
		_ = m.Flush()
	}
	_ = c.stderr.Close()
}

// Crashed reports whether the server wrote a stack trace to its stderr, as
// a program does that failed on an error of its own code.
func (c *Conn) Crashed() bool {
	c.tail.mu.Lock()
	defer c.tail.mu.Unlock()
	return c.tail.crashed
}

// Stderr returns the last lines the server wrote to its stderr (at most
// five, each cut to 200 bytes, without escapes or control characters), the
// oldest first. Once the server has exited, it first waits, within the stop
// timeout, for the rest of its stderr to be read.
func (c *Conn) Stderr() []string {
	select {
	case <-c.exited:
		waitFor(c.stderrDone, c.stopTimeout)
	default:
	}
	return c.tail.last()
}
