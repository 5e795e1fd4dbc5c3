package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os/exec"
	"strings"
	"syscall"

	"github.com/mcpbridge/mcpbridge/internal/redact"
	"github.com/mcpbridge/mcpbridge/internal/stdio"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/mcptool"
)

// A startFailure is a server that did not start, said as a person wants
// to read it: one short sentence of cause first, then the last lines the
// server wrote to its stdout that are not JSON-RPC, when it exited after
// them, and to its stderr, a hint when its environment may lack a
// variable, and with -v the whole chain of errors. Its Error is the chain.
type startFailure struct {
	who     string // the server, as the user gave it: server "x", the server at --url
	err     error
	hint    string
	verbose bool
}

func (f *startFailure) Error() string { return f.err.Error() }
func (f *startFailure) Unwrap() error { return f.err }

// lines says the failure: the first line what happened, the others
// indented.
func (f *startFailure) lines() []string {
	// The causes quote URLs, which go only as scheme and host.
	lines := []string{untrusted.Line(redact.URLs(f.who + " did not start: " + startCause(f.err)))}
	if se := (*stdio.ServerError)(nil); errors.As(f.err, &se) {
		if len(se.Stdout) > 0 && ranAndFailed(f.err) {
			// Otherwise the cause quotes them, as what closed the connection.
			lines = append(lines, "  it wrote to stdout, which is not JSON-RPC:")
			for _, l := range se.Stdout {
				lines = append(lines, "    "+untrusted.Line(l))
			}
		}
		if len(se.Stderr) > 0 {
			lines = append(lines, "  its last words on stderr:")
			for _, l := range se.Stderr {
				lines = append(lines, "    "+untrusted.Line(l))
			}
		}
	}
	if f.hint != "" {
		lines = append(lines, "  "+untrusted.Line(f.hint))
	}
	if f.verbose {
		lines = append(lines, "  detail: "+untrusted.Line(redact.URLs(f.err.Error())))
	}
	return lines
}

// startCause says in one sentence why a server did not start.
func startCause(err error) string {
	var (
		notFound *exec.Error
		path     *fs.PathError
		te       *mcptool.TransportError
		pe       *mcptool.ProtocolError
		se       *stdio.ServerError
		dial     *net.OpError
		dns      *net.DNSError
	)
	switch {
	case errors.As(err, &dns) && dns.IsNotFound:
		return fmt.Sprintf("its host %s was not found", dns.Name)
	case errors.As(err, &dial) && dial.Op == "dial" && dial.Addr != nil:
		// What failed on the way (initialize, its POST) is for -v.
		if errors.Is(dial.Err, syscall.ECONNREFUSED) {
			return fmt.Sprintf("nothing listens at %s (connection refused)", dial.Addr)
		}
		return fmt.Sprintf("it could not be reached at %s: %v", dial.Addr, dial.Err)
	case errors.As(err, &notFound):
		return "its program was not found: " + notFound.Error()
	case errors.As(err, &path):
		return "it could not be started: " + path.Error()
	case errors.As(err, &te) && te.Timeout():
		return "it did not answer in time: " + withoutStderr(te.Err)
	case ranAndFailed(err):
		errors.As(err, &se)
		return exited(se.Exit) + " before answering"
	case errors.As(err, &se) && se.Listens != "":
		return "it serves MCP over HTTP, not over stdio: it says it listens on " + se.Listens
	case errors.As(err, &se):
		return withoutStderr(se)
	case errors.As(err, &te):
		return te.Err.Error()
	case errors.As(err, &pe) && pe.Op == "connect":
		return pe.Err.Error()
	case errors.As(err, &pe):
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// withoutStderr is err's text without the stderr lines a stdio server's
// error quotes, which a startFailure shows apart.
func withoutStderr(err error) string {
	var se *stdio.ServerError
	if !errors.As(err, &se) {
		return err.Error()
	}
	quiet := *se
	quiet.Stderr = nil
	return strings.Replace(err.Error(), se.Error(), quiet.Error(), 1)
}

// ranAndFailed reports whether err says that a stdio server started and
// ended by itself, which is then why it failed: not when it stopped
// reading, or wrote what is not JSON-RPC until the connection gave up on
// it, which made it stop. A server that wrote a few such lines and exited
// ended the connection itself.
func ranAndFailed(err error) bool {
	var se *stdio.ServerError
	return errors.As(err, &se) && se.Exit != nil && !se.Stopped && !se.NotReading &&
		(len(se.Stdout) == 0 || se.Ended)
}

// exited says how a server process ended.
func exited(exit error) string {
	var ee *exec.ExitError
	switch {
	case !errors.As(exit, &ee):
		return "it ended: " + exit.Error()
	case ee.Exited():
		return fmt.Sprintf("it exited with status %d", ee.ExitCode())
	}
	return "it ended on a signal (" + ee.String() + ")"
}
