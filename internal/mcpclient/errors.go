package mcpclient

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpbridge/mcpbridge/internal/redact"
	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
	"github.com/mcpbridge/mcpbridge/tool"
)

// A TransportError says the server could not be reached or the connection
// failed: it would not start, it exited, the HTTP request failed, no answer
// came in time. Its methods say what the failure means ([tool.Retryable],
// [tool.OutcomeUnknown], [tool.Fatal] read them through any wrapping).
type TransportError struct {
	// Server is the provider's name for the server.
	Server string
	// Op is what was being done: "connect", or a method and its subject,
	// such as `tools/call "add_note"`.
	Op string
	// Err is the cause.
	Err error

	retryable, timeout, outcomeUnknown bool
}

func (e *TransportError) Error() string { return format(e.Server, e.Op, e.Err) }
func (e *TransportError) Unwrap() error { return e.Err }

// Retryable reports whether trying again (on a new connection, if the old
// one is gone) may help; a refused credential, say, will not, nor a command
// that is not there or not executable, nor an HTTP status that is no
// server's passing state ([HTTPError] lists those that are).
func (e *TransportError) Retryable() bool { return e.retryable }

// Timeout reports whether the error is a deadline this package set (the
// connect, request or call timeout) passing. A call that timed out was
// cancelled on the wire; whether the tool ran is unknown.
func (e *TransportError) Timeout() bool { return e.timeout }

// OutcomeUnknown reports that the tool may or may not have run: the
// connection was lost while the call was in flight (and the call was not
// resent, since running a tool that is not idempotent twice may do harm:
// Retryable is false), a gateway before the server answered the call 502
// or 504, or the call timed out.
func (e *TransportError) OutcomeUnknown() bool {
	return e.outcomeUnknown || e.timeout && strings.HasPrefix(e.Op, "tools/call")
}

// Fatal reports whether the server cannot be reached in a way no retry
// mends, so an agent should stop rather than call it again.
func (e *TransportError) Fatal() bool { return !e.retryable && !e.OutcomeUnknown() }

// A ProtocolError says the server answered, but not as the protocol allows:
// a JSON-RPC error, a malformed result, an unsupported negotiated protocol
// version, a listing that never ends. Retrying the same request will not help.
type ProtocolError struct {
	// Server is the provider's name for the server.
	Server string
	// Op is what was being done, as in [TransportError].
	Op string
	// Code is the JSON-RPC error code, or 0 if the error is not a JSON-RPC
	// error response.
	Code int64
	// Err is the cause.
	Err error
}

func (e *ProtocolError) Error() string { return format(e.Server, e.Op, e.Err) }
func (e *ProtocolError) Unwrap() error { return e.Err }

// A ConfigError says the provider's settings are unusable. Option names the
// setting at fault.
type ConfigError struct {
	// Server is the provider's name for the server.
	Server string
	// Option is the setting at fault, such as "transport" or "url".
	Option string
	// Err says what is wrong with it.
	Err error
}

func (e *ConfigError) Error() string {
	return format(e.Server, "option "+e.Option, e.Err)
}
func (e *ConfigError) Unwrap() error { return e.Err }

// Fatal reports true: no call succeeds until the setting is mended.
func (e *ConfigError) Fatal() bool { return true }

// A SchemaError says a tool's schema could not be used, or a value broke it:
// for an output schema, a successful result whose structured content does not
// match (or is missing). Pointer is a JSON pointer into the schema or value
// where the problem lies, when known.
type SchemaError struct {
	// Server is the provider's name for the server.
	Server string
	// Tool is the tool whose schema is at fault.
	Tool string
	// Pointer locates the problem, if known.
	Pointer string
	// Err says what is wrong.
	Err error
}

func (e *SchemaError) Error() string {
	op := fmt.Sprintf("tool %q", e.Tool)
	if e.Pointer != "" {
		op += " at " + e.Pointer
	}
	return format(e.Server, op, e.Err)
}
func (e *SchemaError) Unwrap() error { return e.Err }

// format is the text of every error of this package. A URL in it (go-sdk
// quotes the URLs it requested) shows only its scheme and host.
func format(server, op string, err error) string {
	return redact.URLs(fmt.Sprintf("server %q: %s: %v", server, op, err))
}

// classify is [classify] for the provider's server, with the secrets the
// provider knows ([Provider.secrets]) masked wherever the failure quotes
// what the server said: every failure a server causes comes in by this
// door, and the server's own words (a JSON-RPC error that echoes a header,
// an error page quoting the request's key) are quoted in its text. What
// the transports keep of the server's words is masked as they keep it
// (sdkfix.Refusal's body, internal/stdio's lines).
func (p *Provider) classify(op string, err error, expired bool) error {
	err = classify(p.name, op, err, expired)
	if p.secrets.Empty() {
		return err
	}
	switch e := err.(type) {
	case *TransportError:
		c := *e
		c.Err = masked{e.Err, p.secrets}
		return &c
	case *ProtocolError:
		c := *e
		c.Err = masked{e.Err, p.secrets}
		return &c
	case *cancelled:
		c := *e
		c.err = masked{e.err, p.secrets}
		return &c
	}
	return err
}

// masked is a failure whose text has secrets masked. A server's JSON-RPC
// error in it is read as a copy with the secrets masked in its message and
// data (errors.As), so that what relays it (a gateway) relays no secret.
type masked struct {
	err     error
	secrets redact.Secrets
}

func (m masked) Error() string { return m.secrets.Mask(m.err.Error()) }
func (m masked) Unwrap() error { return m.err }

func (m masked) As(target any) bool {
	t, ok := target.(**jsonrpc.Error)
	var wire *jsonrpc.Error
	if !ok || !errors.As(m.err, &wire) {
		return false
	}
	c := *wire
	c.Message = m.secrets.Mask(c.Message)
	if len(c.Data) > 0 {
		data := json.RawMessage(m.secrets.Mask(string(c.Data)))
		if !json.Valid(data) {
			data = nil
		}
		c.Data = data
	}
	*t = &c
	return true
}

// classify turns an error from go-sdk into one of this package's types,
// naming server and operation. expired reports whether a deadline this
// package set has passed (rather than the caller's).
func classify(server, op string, err error, expired bool) error {
	if err == nil {
		return nil
	}
	var (
		te *TransportError
		pe *ProtocolError
		ce *ConfigError
		se *SchemaError
		re *tool.RefusedError // the user declined what the server asked first
		ue *UnanswerableError
	)
	if errors.As(err, &te) || errors.As(err, &pe) || errors.As(err, &ce) || errors.As(err, &se) || errors.As(err, &re) || errors.As(err, &ue) {
		return err
	}
	var ref *sdkfix.Refusal
	if errors.As(err, &ref) {
		// What go-sdk says around it (the request it was sending, the
		// URL) adds nothing the operation does not say.
		return refused(server, op, ref)
	}
	if sdkfix.Undelivered(err) {
		// go-sdk's own failure to deliver, not an answer from the server.
		return &TransportError{Server: server, Op: op, retryable: retryable(err), Err: err}
	}
	var wire *jsonrpc.Error
	if errors.As(err, &wire) {
		return &ProtocolError{Server: server, Op: op, Code: wire.Code, Err: err}
	}
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var b64 base64.CorruptInputError
	if errors.As(err, &syntax) || errors.As(err, &typ) || errors.As(err, &b64) || sdkfix.Malformed(err) {
		return &ProtocolError{Server: server, Op: op, Err: err}
	}
	if errors.Is(err, context.DeadlineExceeded) && expired {
		return &TransportError{Server: server, Op: op, retryable: true, timeout: true, Err: err}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		// The caller's own cancellation is not the server's failure.
		return &cancelled{server: server, op: op, err: err}
	}
	return &TransportError{Server: server, Op: op, retryable: retryable(err), Err: err}
}

// cancelled is a request the caller's context ended, named.
type cancelled struct {
	server, op string
	err        error
}

func (e *cancelled) Error() string { return format(e.server, e.op, e.err) }
func (e *cancelled) Unwrap() error { return e.err }

// retryable reports whether err is a failure that trying again may mend.
// go-sdk passes some causes on as text alone, hence the texts.
func retryable(err error) bool {
	var oe *originError
	if errors.As(err, &oe) || sdkfix.Says(err, originRefusal) {
		return false // the server would send us elsewhere again
	}
	// A syscall.Errno is a net.Error too, whatever it says: of the bare
	// errnos only those the system calls temporary may mend, not ENOENT or
	// EACCES from starting a command that is not there or not executable.
	var ne net.Error
	if errors.As(err, &ne) {
		if errno, bare := ne.(syscall.Errno); !bare || errno.Temporary() {
			return true
		}
	}
	return sdkfix.NetworkDown(err) || connectionGone(err) || errors.Is(err, syscall.ECONNREFUSED)
}
