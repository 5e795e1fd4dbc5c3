package stdio

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/mcpbridge/mcpbridge/internal/plural"
	"github.com/mcpbridge/mcpbridge/internal/redact"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
)

// The bounds on what a server writes to stdout that is not JSON-RPC.
const (
	// maxJunkQuoted is how many such lines an error quotes: the last ones
	// since the server last wrote JSON-RPC.
	maxJunkQuoted = 3
	// maxJunkQuote is the bytes of a line an error quotes.
	maxJunkQuote = 100
	// maxJunkLines and maxJunkBytes bound what a server may write before
	// its first JSON-RPC message: past either, the connection fails at
	// once rather than at the connect deadline. They are generous, as
	// servers print banners and logs as they start, and they count lines
	// and bytes, not time, so that a slow server is never cut short.
	maxJunkLines = 1000
	maxJunkBytes = 1 << 20
)

// junk records the lines a server wrote to stdout that are not JSON-RPC,
// for an error to quote: the last few since its last message that was,
// each cut to one line without escapes or control characters, as they are
// the server's.
type junk struct {
	clean   atomic.Bool    // the server has spoken and nothing is quoted since
	secrets redact.Secrets // masked in what is quoted

	mu      sync.Mutex
	quoted  []string // oldest first
	spoken  bool     // the server has written JSON-RPC
	lines   int      // before it did
	bytes   int64
	listens string // where it said it listens, before it spoke
}

// add records line and reports whether the server, not having written
// JSON-RPC yet, has written too much else, or where the line says it
// listens over HTTP: a server that writes that to stdout, where a stdio
// server writes nothing but JSON-RPC, serves MCP over HTTP.
func (j *junk) add(line []byte) (flood bool, listens string) {
	q := quotable(line, maxJunkQuote, j.secrets)
	j.mu.Lock()
	defer j.mu.Unlock()
	j.clean.Store(false)
	if len(j.quoted) == maxJunkQuoted {
		j.quoted = append(j.quoted[:0], j.quoted[1:]...)
	}
	j.quoted = append(j.quoted, q)
	if j.spoken {
		return false, ""
	}
	j.lines++
	j.bytes += int64(len(line))
	if j.listens == "" {
		j.listens = listenURL(string(line[:min(len(line), 4*maxJunkQuote)]))
	}
	return j.lines > maxJunkLines || j.bytes > maxJunkBytes, j.listens
}

// notSpoken reports whether the server has written no JSON-RPC yet, and
// where it said on stdout that it listens.
func (j *junk) notSpoken() (bool, string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return !j.spoken, j.listens
}

// listening is a line by which a server says it serves HTTP at a URL:
// "MCP server listening on http://localhost:3001/mcp", "Uvicorn running on
// http://127.0.0.1:8000".
var listening = regexp.MustCompile(`(?i)\b(listen|listens|listening|running|serving|started|available)\b.*?\b(https?://[^\s"'<>]+)`)

// listenURL returns the URL line says a server listens on, without what
// may be a secret (user info, query, fragment) and with a wildcard host
// (0.0.0.0, [::]) made loopback, as a client reaches it; or "".
func listenURL(line string) string {
	m := listening.FindStringSubmatch(line)
	if m == nil {
		return ""
	}
	u, err := url.Parse(strings.TrimRight(m[2], ".,;:)]}"))
	if err != nil || u.Host == "" {
		return ""
	}
	switch u.Hostname() {
	case "0.0.0.0", "::":
		u.Host = net.JoinHostPort("127.0.0.1", u.Port())
		if u.Port() == "" {
			u.Host = "127.0.0.1"
		}
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}

// spoke notes a JSON-RPC message: what came before is no longer what went
// wrong.
func (j *junk) spoke() {
	if j.clean.Load() {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.quoted = j.quoted[:0]
	j.spoken = true
	j.clean.Store(true)
}

// last returns the lines the server wrote since its last message, oldest
// first.
func (j *junk) last() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.quoted)
}

// quotable returns the start of line, at most limit bytes of it, as one
// line of text fit to show, as untrusted.Line makes it: no escape sequence,
// control or invisible character, each of secrets masked, and "…" where it
// was cut. What it drops costs no room, so it is given a margin more than
// the quote; the secrets are masked before the margin is cut, so that no
// part of one that begins within it is quoted.
func quotable(line []byte, limit int, secrets redact.Secrets) string {
	margin := 4 * limit
	in := string(line[:min(len(line), margin+maxSecretRoom)])
	in = secrets.Mask(in)
	cut := len(line) > margin
	if len(in) > margin {
		in = in[:margin]
	}
	q := untrusted.Line(in)
	if len(q) > limit {
		i := limit
		for !utf8.RuneStart(q[i]) {
			i--
		}
		q, cut = q[:i], true
	}
	if cut {
		q += "…"
	}
	return q
}

// maxSecretRoom is how far past what it quotes a line is read to mask a
// secret that begins within the quote: the longest secret masked whole.
const maxSecretRoom = 4 << 10

// skip notes a line that is not JSON-RPC. Servers print banners and stray
// debug output to stdout; ending the session for that would be harsh,
// unless the server writes nothing else.
func (c *Conn) skip(line []byte, err error) {
	c.logger.Debug("skipping a line from MCP server that is not JSON-RPC",
		"command", c.name, "pid", c.pid, "bytes", len(line), "error", err)
	switch flood, listens := c.junk.add(line); {
	case listens != "":
		c.fail(fmt.Errorf("MCP server %q does not speak MCP over stdio: it says on stdout that it listens on %s", c.name, listens))
	case flood:
		c.fail(fmt.Errorf("MCP server %q does not speak JSON-RPC: it wrote over %s (or %d KiB) to stdout, none of them JSON-RPC",
			c.name, plural.Count(maxJunkLines, "line", "lines"), maxJunkBytes>>10))
	}
}
