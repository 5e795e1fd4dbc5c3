package tool

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
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
//   - a handler that returns an [UnservedError], or answers with the legacy
//     envelope {"error": "Unknown tool: ..."} as its only text, passes the call
//     to the next;
//   - any other answer, an error included, is the composition's at once;
//   - the last handler's answer is the composition's whatever it is, a
//     decline included, so a host can tell that nothing served the call.
//
// Compose with no handlers serves nothing.
func Compose(handlers ...Handler) Handler {
	hs := append([]Handler(nil), handlers...)
	return HandlerFunc(func(ctx context.Context, name string, args json.RawMessage) (Reply, error) {
		for i, h := range hs {
			res, err := h.Call(ctx, name, args)
			if i == len(hs)-1 || !declined(res, err) {
				return res, err
			}
		}
		return Reply{}, &UnservedError{Name: name}
	})
}

// declined reports whether a handler's answer means "not mine".
func declined(res Reply, err error) bool {
	if err != nil {
		return errors.Is(err, ErrUnserved)
	}
	return IsUnknownToolEnvelope(res)
}

// IsUnknownToolEnvelope reports whether res is the legacy way of declining a
// call: a single text part holding a JSON object whose only member is
// "error", a string starting "Unknown tool:".
func IsUnknownToolEnvelope(res Reply) bool {
	if len(res.Parts) != 1 {
		return false
	}
	t, ok := res.Parts[0].(TextPart)
	if !ok || !strings.Contains(t.Text, "Unknown tool") {
		return false
	}
	var env map[string]json.RawMessage
	if json.Unmarshal([]byte(t.Text), &env) != nil || len(env) != 1 {
		return false
	}
	var msg string
	if json.Unmarshal(env["error"], &msg) != nil {
		return false
	}
	return strings.HasPrefix(msg, "Unknown tool:")
}
