package tool

import (
	"errors"
	"fmt"

	"github.com/mcpbridge/mcpbridge/internal/untrusted"
)

// ErrUnserved is the identity of every [UnservedError]:
// errors.Is(err, ErrUnserved) reports that a handler does not serve a name.
var ErrUnserved = errors.New("tool not served")

// An UnservedError says that a handler does not serve the named tool, so a
// composition may try the next handler (see [Compose]).
type UnservedError struct {
	// Name is the tool name that was called.
	Name string
}

func (e *UnservedError) Error() string { return fmt.Sprintf("tool %q: not served", e.Name) }

// Is makes errors.Is(err, ErrUnserved) hold.
func (e *UnservedError) Is(target error) bool { return target == ErrUnserved }

// A FailedError says that the tool ran and failed. Message is written for the
// model to read and act on; Err, if set, is the cause for the host.
type FailedError struct {
	// Name is the tool that failed.
	Name string
	// Message is what the model reads.
	Message string
	// Err is the underlying cause, if any.
	Err error
}

func (e *FailedError) Error() string {
	return fmt.Sprintf("tool %q failed: %s", e.Name, e.Message)
}

func (e *FailedError) Unwrap() error { return e.Err }

// A RefusedError says that a gate refused the call before it ran: a policy, an
// approval hook, a validation the host does before sending. Message is written
// for the model to read.
type RefusedError struct {
	// Name is the tool that was refused.
	Name string
	// Message says why, for the model.
	Message string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("tool %q refused: %s", e.Name, e.Message)
}

// What a failure means. An error says it by methods of these names, as a
// net.Error says Timeout(); the functions below find the first error in
// the chain that has the method, so wrapping keeps the answer. The errors of
// package mcptool implement them; a host's own handler may too.
//
//	Retryable() bool       trying the same call again may succeed
//	OutcomeUnknown() bool  the tool may or may not have run
//	Fatal() bool           no call on this handler can succeed until the
//	                       host changes something (its configuration): going
//	                       on is pointless

// Retryable reports whether err says that trying the same call again (on a
// new connection, if the old one is gone) may succeed.
func Retryable(err error) bool {
	var e interface{ Retryable() bool }
	return errors.As(err, &e) && e.Retryable()
}

// OutcomeUnknown reports whether err says that the tool may or may not have
// run: the connection was lost, or the call timed out, while it was in
// flight. Such a call must not be sent again blindly.
func OutcomeUnknown(err error) bool {
	var e interface{ OutcomeUnknown() bool }
	return errors.As(err, &e) && e.OutcomeUnknown()
}

// Fatal reports whether err says that going on is pointless: the handler is
// misconfigured, or its server cannot be reached at all.
func Fatal(err error) bool {
	var e interface{ Fatal() bool }
	return errors.As(err, &e) && e.Fatal()
}

// Explain says in words what the failed call of tool name means for the
// model, and whether going on is pointless (a host ends its loop then, and
// gives the model the text otherwise): not served, refused, failed, timed
// out, outcome unknown, unreachable. What a failure means is the error's to
// say ([OutcomeUnknown], [Fatal], [Retryable], and Timeout as net.Error has
// it), whoever made it. The text may quote the server: it is cleaned of
// escape sequences, control and invisible characters. Package agent answers
// its model so; a framework's agent (adapters/eino, adapters/genkit) the same.
func Explain(name string, err error) (text string, fatal bool) {
	text, fatal = explain(name, err)
	return untrusted.Text(text), fatal
}

func explain(name string, err error) (text string, fatal bool) {
	var (
		failed  *FailedError
		refused *RefusedError
		timeout interface{ Timeout() bool }
	)
	switch {
	case errors.Is(err, ErrUnserved):
		return fmt.Sprintf("There is no tool named %q. Call only the tools you were given.", name), false
	case errors.As(err, &refused):
		return fmt.Sprintf("The call was refused and did not run: %s", refused.Message), false
	case errors.As(err, &failed):
		return fmt.Sprintf("The tool ran and failed: %s", failed.Message), false
	case errors.As(err, &timeout) && timeout.Timeout():
		return fmt.Sprintf("The tool did not answer in time and was cancelled; whether it ran is unknown. (%v)", err), false
	case OutcomeUnknown(err):
		return "The exchange with the tool's server failed during the call (the connection was lost, or a gateway before the server failed), so whether the tool ran is unknown. Check its effect before calling it again.", false
	case Fatal(err):
		return "The tool cannot be used: its server cannot be reached, or it is misconfigured on the host.", true
	case Retryable(err):
		return "The tool's server could not be reached just now; the call did not complete. Try again or do without it.", false
	}
	return fmt.Sprintf("The call failed: %v", err), false
}
