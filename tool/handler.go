package tool

import (
	"context"
	"encoding/json"
	"errors"
)

// A Handler runs a model's tool call. args is the JSON arguments object as
// the model wrote it (nil or empty when it wrote none).
//
// A Handler returns an [UnservedError] for a name it does not serve, a
// [FailedError] when the tool ran and failed, and a [RefusedError] when a gate
// refused the call. Handlers must be safe for concurrent use: a model's
// parallel calls run at once.
type Handler interface {
	Call(ctx context.Context, name string, args json.RawMessage) (Reply, error)
}

// HandlerFunc adapts a function to a [Handler].
type HandlerFunc func(ctx context.Context, name string, args json.RawMessage) (Reply, error)

// Call calls f(ctx, name, args).
func (f HandlerFunc) Call(ctx context.Context, name string, args json.RawMessage) (Reply, error) {
	return f(ctx, name, args)
}

// Compose chains handlers into one, first match wins:
//
//   - each handler is called in order;
//   - a handler that returns an [UnservedError] passes the call to the
//     next;
//   - any other answer, an error or a result whatever its text says, is
//     the composition's at once;
//   - the last handler's answer is the composition's whatever it is, a
//     decline included, so a host can tell that nothing served the call.
//
// Compose with no handlers serves nothing.
func Compose(handlers ...Handler) Handler {
	hs := append([]Handler(nil), handlers...)
	return HandlerFunc(func(ctx context.Context, name string, args json.RawMessage) (Reply, error) {
		for i, h := range hs {
			res, err := h.Call(ctx, name, args)
			if i == len(hs)-1 || !errors.Is(err, ErrUnserved) {
				return res, err
			}
		}
		return Reply{}, &UnservedError{Name: name}
	})
}
