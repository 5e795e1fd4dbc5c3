package tool

import (
	"errors"
	"fmt"
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
