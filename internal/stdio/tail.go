package stdio

import (
	"bytes"
	"io"
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
// Blank lines are not kept. It is safe for concurrent use.
type tail struct {
	secrets redact.Secrets // masked in the lines kept

	mu    sync.Mutex
	lines []string // complete lines, oldest first
	part  []byte   // the line being written, a byte more than quotable reads of it at most
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
